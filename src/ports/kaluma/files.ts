import type * as Fs from 'fs';
import type { FileStore } from '../ports';

// Kaluma's fs module itself, required on first use (see kaluma.d.ts) and
// used as it is: no copy of it into an object of the bundler's. The board's
// start-up script has already required it to mount LittleFS. at() requires
// it: every path is made before fs is touched.
let fs: typeof Fs;

// LittleFS is mounted at '/'. Data is committed on close. Kaluma 1.2.1 leaks
// C memory on its error paths: every failed open (~100 B), and its
// readFile/writeFile never close a file whose read or write threw (~350 B and
// an fd each). So nothing opens a file that may be missing without exists()
// first, only 'w' creates ('r+' and 'w+' do not, 'a' is broken: appends open
// 'r+' and write at the size), and every open is closed in a finally.
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

/**
 * Opens p with `flags` and closes it again: reads `data` bytes (a number)
 * from `pos` (fewer at the end of the file), or writes `data` (bytes) at `pos`.
 */
function io(p: string, flags: string, data: number | Uint8Array, pos: number): Uint8Array | undefined {
  const q = at(p);
  const fd = fs.open(q, flags);
  try {
    if (typeof data !== 'number') {
      fs.write(fd, data, 0, data.length, pos);
      return;
    }
    const buf = new Uint8Array(data);
    const n = fs.read(fd, buf, 0, data, pos);
    return n < data ? buf.subarray(0, n) : buf;
  } finally {
    fs.close(fd);
  }
}

export const kalumaFiles: FileStore = {
  read: (p) => {
    const n = sizeOf(p);
    return n === undefined ? undefined : io(p, 'r', n, 0);
  },
  readAt: (p, offset, length, known) => {
    // Looked up first (840 B of the engine's heap) unless the caller keeps
    // the file: a failed open leaks in Kaluma.
    if (!known && !found(p)) throw new Error(p + ': no such file');
    return io(p, 'r', length, offset) as Uint8Array;
  },
  write: (p, bytes) => void io(p, 'w', bytes, 0),
  append: (p, bytes, size) => {
    // Looked up (exists, then stat: ~1.8 KB of the engine's heap) only when
    // the caller does not keep it. A kept size is trusted: a file removed
    // behind the caller's back fails its 'r+' open (Kaluma leaks ~100 B),
    // which the outbox takes as the end of that segment.
    const n = size !== undefined ? size : sizeOf(p);
    io(p, n ? 'r+' : 'w', bytes, n || 0);
  },
  size: sizeOf,
  rename: (from, to) => {
    const a = at(from);
    fs.rename(a, at(to));
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
