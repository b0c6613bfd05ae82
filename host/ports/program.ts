// The stored program on the host: a built artifact (dist/*.js) read back as
// the board reads its program area, so cold code is loaded from the same
// bytes, through the same loader, as on the device.
import { closeSync, openSync, readSync } from 'node:fs';
import type { ProgramStore } from '../../src/ports/ports';

export function createFileProgram(path: string): ProgramStore {
  return {
    read(offset, length) {
      let fd: number;
      try {
        fd = openSync(path, 'r');
      } catch {
        return undefined;
      }
      try {
        // Past the end reads as erased flash, like the board's program area.
        const out = new Uint8Array(length).fill(0xff);
        readSync(fd, out, 0, length, offset);
        return out;
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** No stored program: what a board running a program from a file sees. */
export const noProgram: ProgramStore = { read: () => undefined };
