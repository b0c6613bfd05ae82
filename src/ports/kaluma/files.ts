// Named imports: a namespace import makes the bundler copy the module into
// a getter object, which costs heap on the board.
import { close, exists, mkdir, open, read, readdir, rename, stat, unlink, write } from 'fs';
import type { FileStore } from '../ports';

// LittleFS is mounted at '/'. Data is committed on close. Kaluma 1.2.1 leaks
// C memory on its error paths: every failed open (~100 B), and its
// readFile/writeFile never close a file whose read or write threw (~350 B and
// an fd each). So nothing opens a file that may be missing without exists()
// first, only 'w' creates ('r+' and 'w+' do not, 'a' is broken: appends open
// 'r+' and write at the size), and every open is closed in a finally.
const at = (p: string): string => (p.charAt(0) === '/' ? p : '/' + p);
const has = (p: string): boolean => exists(at(p));
const sizeOf = (p: string): number => stat(at(p)).size;

function withFd<T>(p: string, flags: string, f: (fd: number) => T): T {
  const fd = open(at(p), flags);
  try {
    return f(fd);
  } finally {
    close(fd);
  }
}

function readRange(p: string, offset: number, length: number): Uint8Array {
  return withFd(p, 'r', (fd) => {
    const buf = new Uint8Array(length);
    const n = read(fd, buf, 0, length, offset);
    return n < length ? buf.subarray(0, n) : buf;
  });
}

const put = (p: string, flags: string, bytes: Uint8Array, position: number): void =>
  withFd(p, flags, (fd) => void write(fd, bytes, 0, bytes.length, position));

export const kalumaFiles: FileStore = {
  read: (p) => (has(p) ? readRange(p, 0, sizeOf(p)) : undefined),
  readAt: (p, offset, length) => {
    if (!has(p)) throw new Error(p + ': no such file');
    return readRange(p, offset, length);
  },
  write: (p, bytes) => put(p, 'w', bytes, 0),
  append: (p, bytes) => (has(p) ? put(p, 'r+', bytes, sizeOf(p)) : put(p, 'w', bytes, 0)),
  size: (p) => (has(p) ? sizeOf(p) : undefined),
  rename: (from, to) => rename(at(from), at(to)),
  remove: (p) => {
    if (has(p)) unlink(at(p));
  },
  list: (d) => (has(d) ? readdir(at(d)) : []),
  mkdir: (d) => {
    if (!has(d)) mkdir(at(d));
  },
};
