import type * as Fs from 'fs';
import type { FileStore } from '../ports';
import { keepCollecting } from './heap';

// Kaluma's fs module, required on first use by at() (see kaluma.d.ts).
let fs: typeof Fs;

// Kaluma 1.2.1 leaks C memory on every failed open, and its readFile/writeFile
// never close a file whose read or write threw (docs/architecture.md, The ports
// and the runtime's defects). So a file that may be missing is looked up
// first, only 'w' creates ('a' is broken: appends open 'r+' and write at the
// size), and every open is closed in a finally.
function at(p: string): string {
  if (!fs) fs = (globalThis as unknown as { require(id: 'fs'): typeof Fs }).require('fs');
  return p.charAt(0) === '/' ? p : '/' + p;
}

/** p's path when it exists, else ''. */
function found(p: string): string {
  const q = at(p);
  return fs.exists(q) ? q : '';
}

function sizeOf(p: string): number | undefined {
  const q = found(p);
  return q ? fs.stat(q).size : undefined;
}

// fs.js's VFS_FLAG_* bits for the three opens used: 'r', 'r+' and 'w'.
const enum F {
  Read = 1,
  ReadWrite = 3,
  /** Write, create, truncate. */
  Create = 38,
}

/** The calls io() and rename() make (open with fs.js's VFS flags). */
type Io = Pick<Fs.Vfs, 'open' | 'read' | 'write' | 'close' | 'rename'>;
let io0: Io | undefined;

/**
 * LittleFS's own object, mounted at '/', called without fs.js in between,
 * which resolves every path again, keeps an object per open and passes
 * arguments through rest arrays: the outbox opens files several times per
 * reading. fs.js where there is no such mount.
 */
function direct(): Io {
  if (!io0) {
    // Throws where nothing is mounted at '/': as an open would.
    const m = fs.__lookup ? fs.__lookup('/') : undefined;
    io0 = m && m.path === '/' ? m : {
      open: (q, f) => fs.open(q, f === (F.Read as number) ? 'r' : f === (F.ReadWrite as number) ? 'r+' : 'w'),
      read: fs.read,
      write: fs.write,
      close: fs.close,
      rename: fs.rename,
    };
  }
  return io0;
}

/**
 * Opens p with `flags` and closes it again: reads `data` bytes (a number)
 * from `pos` (fewer at the end of the file), or writes `data` (bytes) at `pos`.
 */
function io(p: string, flags: F, data: number | Uint8Array, pos: number): Uint8Array | undefined {
  // LittleFS's block callbacks are most of the running agent's garbage.
  keepCollecting();
  const q = at(p);
  const v = direct();
  // The mode is fs.js's default; LittleFS ignores it.
  const id = v.open(q, flags, 0o666);
  try {
    if (typeof data !== 'number') {
      v.write(id, data, 0, data.length, pos);
      return;
    }
    const buf = new Uint8Array(data);
    const n = v.read(id, buf, 0, data, pos);
    return n < data ? buf.subarray(0, n) : buf;
  } finally {
    v.close(id);
  }
}

export const kalumaFiles: FileStore = {
  read: (p) => {
    const n = sizeOf(p);
    return n === undefined ? undefined : io(p, F.Read, n, 0);
  },
  readAt: (p, offset, length, known) => {
    // Looked up first unless the caller keeps the file: a failed open leaks in Kaluma.
    if (!known && !found(p)) throw new Error(p + ': no such file');
    return io(p, F.Read, length, offset) as Uint8Array;
  },
  write: (p, bytes) => void io(p, F.Create, bytes, 0),
  append: (p, bytes, size) => {
    // Looked up only when the caller does not keep the size. A kept size is
    // trusted: a file removed behind its back fails its 'r+' open, which the
    // outbox takes as the end of that segment.
    const n = size !== undefined ? size : sizeOf(p);
    io(p, n ? F.ReadWrite : F.Create, bytes, n || 0);
  },
  size: sizeOf,
  // Once per delivery (the outbox's cursor): fs.js would resolve the path again.
  rename: (from, to) => {
    keepCollecting();
    const a = at(from);
    direct().rename(a, at(to));
  },
  remove: (p) => {
    const q = found(p);
    if (q) fs.unlink(q);
  },
  list: (d) => {
    const q = found(d);
    return q ? fs.readdir(q) : [];
  },
  mkdir: (d) => {
    const q = at(d);
    if (!fs.exists(q)) fs.mkdir(q);
  },
};
