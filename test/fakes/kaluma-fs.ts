// A fake of Kaluma 1.2.1's `fs` module over LittleFS, with the runtime's
// defects on its error paths (modules/fs/fs.js, modules/vfs_lfs/module_vfs_lfs.c):
//
// - every open allocates a C file handle first; an open that fails (missing
//   file without 'w', or refused) never frees it;
// - only 'w' creates; 'r+' and 'w+' do not; 'a' maps to a LittleFS mode with
//   neither read nor write (undefined behaviour on the board: here it throws);
// - a write that fails leaves the file open, marked errored (LittleFS then
//   skips the commit at close, so that close succeeds);
// - a close that fails leaks its handle and keeps its fd taken for good;
// - data reaches the flash at close, never before;
// - readFile and writeFile are fs.js's own: open, read or write, close, with
//   no finally, so a throw in the middle leaves the file open.
//
// refuse(op, times, errno) makes the next `times` calls of that kind throw
// SystemError(errno), as a full (-28) or corrupt (-84) file system does.
// handles() counts C file handles not freed; a port that cleans up after
// every refusal leaves it at 0.

export class FakeSystemError extends Error {
  constructor(readonly errno: number) {
    super(MESSAGES[errno] || 'errno ' + errno);
  }
}

const MESSAGES: Record<number, string> = {
  [-2]: 'No such file or directory',
  [-5]: 'I/O error',
  [-9]: 'Bad file descriptor',
  [-17]: 'File exists',
  [-21]: 'Is a directory',
  [-22]: 'Invalid argument',
  [-28]: 'No space left on device',
  [-84]: 'Corrupted',
};

export type RefusableOp = 'open' | 'read' | 'write' | 'close';

interface OpenFile {
  path: string;
  data: Uint8Array;
  pos: number;
  dirty: boolean;
  erred: boolean;
}

// fs.js's VFS_FLAG_* bits, and its mapping of the flags strings the port may use.
const enum VFS {
  Read = 1,
  Write = 2,
  Create = 4,
  Append = 8,
  Excl = 16,
  Trunc = 32,
}
const FLAGS: Record<string, number> = {
  r: VFS.Read,
  'r+': VFS.Read | VFS.Write,
  w: VFS.Write | VFS.Create | VFS.Trunc,
  'w+': VFS.Write | VFS.Read | VFS.Trunc,
  a: VFS.Append,
};

/** LittleFS's own object (module_vfs_lfs.c), the mount fs.js's __lookup finds. */
export interface KalumaVfs {
  path: string;
  open(path: string, flags: number, mode?: number): number;
  read(id: number, buf: Uint8Array, offset: number, length: number, position: number): number;
  write(id: number, buf: Uint8Array, offset: number, length: number, position: number): number;
  close(id: number): void;
  rename(from: string, to: string): void;
}

export interface KalumaFsFake {
  // Kaluma's fs API (the part the port uses, with fs.js's signatures).
  open(path: string, flags?: string): number;
  /** fs.js's mount lookup: the file system mounted at '/'. */
  __lookup(path: string): KalumaVfs;
  read(fd: number, buf: Uint8Array, offset?: number, length?: number, position?: number): number;
  write(fd: number, buf: Uint8Array, offset?: number, length?: number, position?: number): number;
  close(fd: number): void;
  readFile(path: string): Uint8Array;
  writeFile(path: string, data: Uint8Array): void;
  unlink(path: string): void;
  rename(from: string, to: string): void;
  exists(path: string): boolean;
  stat(path: string): { size: number; isFile(): boolean; isDirectory(): boolean };
  mkdir(path: string): void;
  readdir(path: string): string[];

  // Controls and counters for tests.
  /** The next `times` calls of `op` throw SystemError(errno) (default: no space, -28). */
  refuse(op: RefusableOp, times?: number, errno?: number): void;
  /** Stops every refusal. */
  accept(): void;
  /** C file handles allocated and never freed (open files and leaks). */
  handles(): number;
  /** fds still taken in fs.js's table. */
  fds(): number;
  counts: Record<RefusableOp, number> & { refused: number };
  /** Committed content of a file, or undefined. */
  contents(path: string): Uint8Array | undefined;
  /** Empties the flash and forgets every handle, count and refusal. */
  reset(): void;
}

/** `files` (path -> committed bytes) may be given, and is then the flash itself, shared with the caller. */
export function createKalumaFs(o: { files?: Map<string, Uint8Array> } = {}): KalumaFsFake {
  let files = o.files ?? new Map<string, Uint8Array>();
  let dirs = new Set<string>(['/']);
  // The directories of files already on the flash.
  for (const k of files.keys()) for (let d = k.slice(0, k.lastIndexOf('/')); d; d = d.slice(0, d.lastIndexOf('/'))) dirs.add(d);
  let opens: (OpenFile | null)[] = [];
  let live = 0;
  let refusals: Partial<Record<RefusableOp, { times: number; errno: number }>> = {};

  const norm = (p: string): string => {
    const parts = p.split('/').filter((s) => s !== '' && s !== '.');
    return '/' + parts.join('/');
  };
  const parent = (p: string): string => p.slice(0, p.lastIndexOf('/')) || '/';
  const refused = (op: RefusableOp): void => {
    fake.counts[op]++;
    const r = refusals[op];
    if (!r || r.times <= 0) return;
    r.times--;
    fake.counts.refused++;
    throw new FakeSystemError(r.errno);
  };
  const fobj = (fd: number): OpenFile => {
    const f = opens[fd];
    if (!f) throw new FakeSystemError(-9);
    return f;
  };

  function readFd(fd: number, buf: Uint8Array, offset: number, length: number, position: number): number {
    const f = fobj(fd);
    refused('read');
    const from = position > -1 ? position : f.pos;
    const part = f.data.subarray(from, from + length);
    buf.set(part, offset);
    f.pos = from + part.length;
    return part.length;
  }
  function writeFd(fd: number, buf: Uint8Array, offset: number, length: number, position: number): number {
    const f = fobj(fd);
    try {
      refused('write');
    } catch (e) {
      f.erred = true;
      throw e;
    }
    const from = position > -1 ? position : f.pos;
    const end = Math.max(f.data.length, from + length);
    const g = new Uint8Array(end);
    g.set(f.data);
    g.set(buf.subarray(offset, offset + length), from);
    f.data = g;
    f.pos = from + length;
    f.dirty = true;
    return length;
  }
  function closeFd(fd: number): void {
    const f = fobj(fd);
    // A refused close returns before the handle is freed and fs.js never
    // clears the fd: both stay taken for good.
    refused('close');
    if (f.dirty && !f.erred) files.set(f.path, f.data);
    opens[fd] = null;
    live--;
  }

  function renameFile(from: string, to: string): void {
    const a = norm(from);
    const b = norm(to);
    const f = files.get(a);
    if (!f) throw new FakeSystemError(-2);
    if (!dirs.has(parent(b))) throw new FakeSystemError(-2);
    files.delete(a);
    files.set(b, f);
  }

  /** module_vfs_lfs.c's open: fs.js's VFS flag bits; an id for the handle. */
  function openBits(path: string, bits: number): number {
    const p = norm(path);
    // module_vfs_lfs.c: malloc(handle), then lfs_file_open; no free on error.
    live++;
    refused('open');
    // Neither read nor write ('a': append alone, fs.js's mapping) is undefined
    // on the board; exclusive opens, which the port never makes, are refused too.
    if (!(bits & (VFS.Read | VFS.Write)) || bits & (VFS.Append | VFS.Excl)) throw new FakeSystemError(-22);
    const creates = !!(bits & VFS.Create);
    const existing = files.get(p);
    if (!existing && !creates) throw new FakeSystemError(-2);
    if (!dirs.has(parent(p))) throw new FakeSystemError(-2);
    if (dirs.has(p)) throw new FakeSystemError(-21);
    if (!existing) files.set(p, new Uint8Array(0));
    const truncate = !!(bits & VFS.Trunc);
    const f: OpenFile = { path: p, data: truncate ? new Uint8Array(0) : (existing || new Uint8Array(0)).slice(), pos: 0, dirty: truncate, erred: false };
    const free = opens.indexOf(null);
    if (free >= 0) {
      opens[free] = f;
      return free;
    }
    return opens.push(f) - 1;
  }
  // The file system mounted at '/', as fs.js's __lookup returns it.
  const mount: KalumaVfs = { path: '/', open: openBits, read: readFd, write: writeFd, close: closeFd, rename: renameFile };

  const fake: KalumaFsFake = {
    open(path, flags = 'r') {
      // fs.js's switch: a flag it does not know opens with no bits.
      const bits = FLAGS[flags];
      return openBits(path, bits === undefined ? 0 : bits);
    },
    __lookup(path) {
      if (norm(path).charAt(0) !== '/') throw new FakeSystemError(-2);
      return mount;
    },
    read: (fd, buf, offset = 0, length = buf.length, position = -1) => readFd(fd, buf, offset, length, position),
    write: (fd, buf, offset = 0, length = buf.length, position = -1) => writeFd(fd, buf, offset, length, position),
    close: (fd) => closeFd(fd),
    // fs.js 1.2.1, as it is: no try/finally.
    readFile(path) {
      const size = fake.stat(path).size;
      const buf = new Uint8Array(size);
      const fd = fake.open(path, 'r');
      fake.read(fd, buf, 0, buf.length, 0);
      fake.close(fd);
      return buf;
    },
    writeFile(path, data) {
      const fd = fake.open(path, 'w');
      fake.write(fd, data, 0, data.length, 0);
      fake.close(fd);
    },
    unlink(path) {
      const p = norm(path);
      if (!files.delete(p)) throw new FakeSystemError(-2);
    },
    rename: renameFile,
    exists: (path) => files.has(norm(path)) || dirs.has(norm(path)),
    stat(path) {
      const p = norm(path);
      const f = files.get(p);
      const dir = dirs.has(p);
      if (!f && !dir) throw new FakeSystemError(-2);
      return { size: f ? f.length : 0, isFile: () => !!f, isDirectory: () => dir };
    },
    mkdir(path) {
      const p = norm(path);
      if (dirs.has(p) || files.has(p)) throw new FakeSystemError(-17);
      if (!dirs.has(parent(p))) throw new FakeSystemError(-2);
      dirs.add(p);
    },
    readdir(path) {
      const p = norm(path);
      if (!dirs.has(p)) throw new FakeSystemError(-2);
      const prefix = p === '/' ? '/' : p + '/';
      const names: string[] = [];
      for (const k of [...files.keys(), ...dirs]) {
        if (k !== p && k.startsWith(prefix) && k.slice(prefix.length).indexOf('/') < 0) names.push(k.slice(prefix.length));
      }
      return names.sort();
    },

    refuse(op, times = Infinity, errno = -28) {
      refusals[op] = { times, errno };
    },
    accept() {
      refusals = {};
    },
    handles: () => live,
    fds: () => opens.filter((f) => f !== null).length,
    counts: { open: 0, read: 0, write: 0, close: 0, refused: 0 },
    contents(path) {
      const f = files.get(norm(path));
      return f && f.slice();
    },
    reset() {
      files = new Map();
      dirs = new Set(['/']);
      opens = [];
      live = 0;
      refusals = {};
      fake.counts = { open: 0, read: 0, write: 0, close: 0, refused: 0 };
    },
  };
  return fake;
}

/** One instance per test file: `vi.mock('fs', ...)` hands it to the port under test. */
export const kalumaFs = createKalumaFs();
