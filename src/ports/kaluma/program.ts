// The program area of flash, read back: Kaluma parses the program in place, so
// the cold code in its leading comment costs no heap until read here.
import { DEFAULT_BOARD, getBoard } from '../../board';
import type { ProgramStore } from '../ports';
import { keepCollecting } from './heap';

// Kaluma's flash module, declared here, its only user. Sectors of 4 KB are
// numbered from the key-value storage area, which the program area follows.
interface KFlash {
  read(block: number, buffer: Uint8Array, offset?: number): void;
}

let area: KFlash | undefined;

export const kalumaProgram: ProgramStore = {
  read(offset, length, into) {
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
