// Named imports: a namespace import makes the bundler copy the module into
// a getter object, which costs heap on the board.
import { close, exists, mkdir, open, read, readdir, readFile, rename, stat, unlink, write, writeFile } from 'fs';
import type { FileStore } from '../ports';

// LittleFS is mounted at '/'. Only 'w' creates a file; 'a' is broken in
// 1.2.1, so appends open 'r+' and write at the current size. Data is
// committed on close, so every call closes what it opened.
const at = (p: string): string => (p.charAt(0) === '/' ? p : '/' + p);

function withFd<T>(path: string, flags: string, f: (fd: number) => T): T {
  const fd = open(at(path), flags);
  try {
    return f(fd);
  } finally {
    close(fd);
  }
}

export const kalumaFiles: FileStore = {
  read: (p) => (exists(at(p)) ? readFile(at(p)) : undefined),
  readAt: (p, offset, length) =>
    withFd(p, 'r', (fd) => {
      const buf = new Uint8Array(length);
      const n = read(fd, buf, 0, length, offset);
      return n < length ? buf.subarray(0, n) : buf;
    }),
  write: (p, bytes) => writeFile(at(p), bytes),
  append: (p, bytes) => {
    if (!exists(at(p))) return writeFile(at(p), bytes);
    const size = stat(at(p)).size;
    withFd(p, 'r+', (fd) => write(fd, bytes, 0, bytes.length, size));
  },
  size: (p) => (exists(at(p)) ? stat(at(p)).size : undefined),
  rename: (from, to) => rename(at(from), at(to)),
  remove: (p) => {
    if (exists(at(p))) unlink(at(p));
  },
  list: (d) => (exists(at(d)) ? readdir(at(d)) : []),
  mkdir: (d) => {
    if (!exists(at(d))) mkdir(at(d));
  },
};
