import * as fs from 'fs';
import type { FileStore } from '../ports';

// LittleFS is mounted at '/'. Only 'w' creates a file; 'a' is broken in
// 1.2.1, so appends open 'r+' and write at the current size. Data is
// committed on close, so every call closes what it opened.
const at = (p: string): string => (p.charAt(0) === '/' ? p : '/' + p);

function withFd<T>(path: string, flags: string, f: (fd: number) => T): T {
  const fd = fs.open(at(path), flags);
  try {
    return f(fd);
  } finally {
    fs.close(fd);
  }
}

export const kalumaFiles: FileStore = {
  read: (p) => (fs.exists(at(p)) ? fs.readFile(at(p)) : undefined),
  readAt: (p, offset, length) =>
    withFd(p, 'r', (fd) => {
      const buf = new Uint8Array(length);
      const n = fs.read(fd, buf, 0, length, offset);
      return n < length ? buf.subarray(0, n) : buf;
    }),
  write: (p, bytes) => fs.writeFile(at(p), bytes),
  append: (p, bytes) => {
    if (!fs.exists(at(p))) return fs.writeFile(at(p), bytes);
    const size = fs.stat(at(p)).size;
    withFd(p, 'r+', (fd) => fs.write(fd, bytes, 0, bytes.length, size));
  },
  size: (p) => (fs.exists(at(p)) ? fs.stat(at(p)).size : undefined),
  rename: (from, to) => fs.rename(at(from), at(to)),
  remove: (p) => {
    if (fs.exists(at(p))) fs.unlink(at(p));
  },
  list: (d) => (fs.exists(at(d)) ? fs.readdir(at(d)) : []),
  mkdir: (d) => {
    if (!fs.exists(at(d))) fs.mkdir(at(d));
  },
};
