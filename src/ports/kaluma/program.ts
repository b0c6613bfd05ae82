// The program area of flash, read back: Kaluma parses the stored program
// straight from it (XIP), so bytes the parser skips (the leading comment that
// holds the cold code) cost no heap until someone reads them here.
import { DEFAULT_BOARD, getBoard } from '../../board';
import type { ProgramStore } from '../ports';
import { keepCollecting } from './heap';

// Kaluma's flash module, declared here: the only user. Sectors are 4 KB,
// numbered from the start of the key-value storage area; the program area
// follows that area (Pico W: sector 4, Pico 2 W: sector 16).
interface KFlash {
  read(block: number, buffer: Uint8Array, offset?: number): void;
}

let area: KFlash | undefined;

export const kalumaProgram: ProgramStore = {
  read(offset, length, into) {
    // Cold code and the program's sentences come from here, a window at a time.
    keepCollecting();
    if (!area) {
      const b = getBoard(DEFAULT_BOARD);
      if (!b) return undefined;
      // Through globalThis: a bare require() call would make the bundler add its own shim.
      const F = (globalThis as unknown as { require(n: 'flash'): { Flash: new (base: number, count: number) => KFlash } }).require('flash').Flash;
      area = new F(b.flash.kvBytes / 4096, b.flash.programBytes / 4096);
    }
    // The module reads as many bytes as the array is long, from the start
    // of its buffer (it ignores a view's byteOffset): a view from 0 is safe.
    const out = into ? (into.length === length ? into : into.subarray(0, length)) : new Uint8Array(length);
    // Block 0 with a byte offset: the module reads (base + block) * 4096 + offset.
    area.read(0, out, offset);
    return out;
  },
};
