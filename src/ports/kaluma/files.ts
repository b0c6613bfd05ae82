import type * as Fs from 'fs';
import type { FileStore } from '../ports';

// Kaluma's fs module itself, required on first use (see kaluma.d.ts) and
// used as it is: no copy of it into an object of the bundler's. The board's
// start-up script has already required it to mount LittleFS.
let fsModule: typeof Fs | undefined;
const fs = (): typeof Fs => fsModule || (fsModule = (globalThis as unknown as { require(id: 'fs'): typeof Fs }).require('fs'));

// LittleFS is mounted at '/'. Data is committed on close. Kaluma 1.2.1 leaks
// C memory on its error paths: every failed open (~100 B), and its
// readFile/writeFile never close a file whose read or write threw (~350 B and
// an fd each). So nothing opens a file that may be missing without exists()
// first, only 'w' creates ('r+' and 'w+' do not, 'a' is broken: appends open
// 'r+' and write at the size), and every open is closed in a finally.
const at = (p: string): string => (p.charAt(0) === '/' ? p : '/' + p);
const has = (p: string): boolean => fs().exists(at(p));
const sizeOf = (p: string): number => fs().stat(at(p)).size;

function withFd<T>(p: string, flags: string, f: (fd: number) => T): T {
  const k = fs();
  const fd = k.open(at(p), flags);
  try {
    return f(fd);
  } finally {
    k.close(fd);
  }
}

function readRange(p: string, offset: number, length: number): Uint8Array {
  return withFd(p, 'r', (fd) => {
    const buf = new Uint8Array(length);
    const n = fs().read(fd, buf, 0, length, offset);
    return n < length ? buf.subarray(0, n) : buf;
  });
}

const put = (p: string, flags: string, bytes: Uint8Array, position: number): void =>
  withFd(p, flags, (fd) => void fs().write(fd, bytes, 0, bytes.length, position));

export const kalumaFiles: FileStore = {
  read: (p) => (has(p) ? readRange(p, 0, sizeOf(p)) : undefined),
  readAt: (p, offset, length) => {
    if (!has(p)) throw new Error(p + ': no such file');
    return readRange(p, offset, length);
  },
  write: (p, bytes) => put(p, 'w', bytes, 0),
  append: (p, bytes) => (has(p) ? put(p, 'r+', bytes, sizeOf(p)) : put(p, 'w', bytes, 0)),
  size: (p) => (has(p) ? sizeOf(p) : undefined),
  rename: (from, to) => fs().rename(at(from), at(to)),
  remove: (p) => {
    if (has(p)) fs().unlink(at(p));
  },
  list: (d) => (has(d) ? fs().readdir(at(d)) : []),
  mkdir: (d) => {
    if (!has(d)) fs().mkdir(at(d));
  },
};
