// An in-memory FileStore that can lose power in the middle of a write.
//
// Power model: every byte written costs one unit, and so does every rename,
// remove and mkdir. After powerCutAfter(u), the call that would spend unit
// u + 1 is cut: a write or append keeps only the bytes that fit (a torn
// replace or a torn tail), any other call does nothing, and the call throws.
// The store then stays dark (every mutating call throws) until powerOn().
// Reads always work, so a test can rebuild over what a real cut leaves.
//
// tearNext(k) is the one-shot form: the next write or append keeps its first
// k bytes and throws, and the store keeps working afterwards.
import type { FileStore } from '../../src/ports/ports';

export interface FileOpCounts {
  reads: number;
  writes: number;
  appends: number;
  renames: number;
  removes: number;
  /** Bytes handed to write and append that reached the store. */
  bytesWritten: number;
}

export interface MemoryFileStore extends FileStore {
  /** Cut the power after `units` more units (see above). */
  powerCutAfter(units: number): void;
  /** True once a cut happened and until powerOn(). */
  isDark(): boolean;
  /** Restores power and cancels any pending cut. */
  powerOn(): void;
  /** The next write or append keeps its first k bytes, then throws. */
  tearNext(k: number): void;
  /** Copy of one file, or undefined. */
  contents(path: string): Uint8Array | undefined;
  /** Every file path, sorted. */
  paths(): string[];
  counts: FileOpCounts;
  resetCounts(): void;
}

const zero = (): FileOpCounts => ({ reads: 0, writes: 0, appends: 0, renames: 0, removes: 0, bytesWritten: 0 });

export function createMemoryFileStore(): MemoryFileStore {
  const files = new Map<string, Uint8Array>();
  const dirs = new Set<string>(['']);
  let budget = Infinity;
  let dark = false;
  let tear: number | undefined;

  const parent = (p: string): string => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
  const need = (p: string): void => {
    if (!dirs.has(parent(p))) throw new Error(`ENOENT: no directory for ${p}`);
  };
  const powerFail = (): never => {
    dark = true;
    throw new Error('power cut');
  };
  /** Spends one unit for a call that writes no bytes; throws when it is cut. */
  const op = (): void => {
    if (dark) throw new Error('no power');
    if (budget < 1) powerFail();
    budget -= 1;
  };
  /** Stores keep + bytes, or as much of bytes as the power or a tear lets through. */
  const store = (path: string, bytes: Uint8Array, keep: Uint8Array): void => {
    if (dark) throw new Error('no power');
    need(path);
    const tornAt = tear ?? Infinity;
    tear = undefined;
    const cut = budget < bytes.length && budget <= tornAt;
    const n = Math.min(bytes.length, budget, tornAt);
    // A cut before the first byte means the call never started.
    if (n > 0 || !cut) {
      const out = new Uint8Array(keep.length + n);
      out.set(keep);
      out.set(bytes.subarray(0, n), keep.length);
      files.set(path, out);
    }
    budget -= n;
    s.counts.bytesWritten += n;
    if (cut) powerFail();
    if (n < bytes.length) throw new Error('torn write');
  };

  const s: MemoryFileStore = {
    read(path) {
      s.counts.reads++;
      const f = files.get(path);
      return f && f.slice();
    },
    readAt(path, offset, length) {
      s.counts.reads++;
      const f = files.get(path);
      if (!f) throw new Error(`ENOENT: ${path}`);
      return f.slice(offset, offset + length);
    },
    write(path, bytes) {
      s.counts.writes++;
      store(path, bytes, new Uint8Array(0));
    },
    append(path, bytes, size) {
      s.counts.appends++;
      const was = files.get(path) ?? new Uint8Array(0);
      // A size the caller kept must be the file's: a store on the board writes there.
      if (size !== undefined && size !== was.length) throw new Error(path + ': append at ' + size + ', but the file holds ' + was.length + ' B');
      store(path, bytes, was);
    },
    size(path) {
      const f = files.get(path);
      return f && f.length;
    },
    rename(from, to) {
      s.counts.renames++;
      const f = files.get(from);
      if (!f) throw new Error(`ENOENT: ${from}`);
      need(to);
      op();
      files.delete(from);
      files.set(to, f);
    },
    remove(path) {
      s.counts.removes++;
      if (!files.has(path)) return;
      op();
      files.delete(path);
    },
    list(dir) {
      const prefix = dir === '' ? '' : dir + '/';
      const out: string[] = [];
      for (const p of files.keys()) {
        if (p.startsWith(prefix) && !p.slice(prefix.length).includes('/')) out.push(p.slice(prefix.length));
      }
      for (const d of dirs) {
        if (d !== dir && parent(d) === dir) out.push(d.slice(prefix.length));
      }
      return out.sort();
    },
    mkdir(dir) {
      if (dirs.has(dir)) return;
      need(dir);
      op();
      dirs.add(dir);
    },

    powerCutAfter(units) {
      budget = units;
    },
    isDark: () => dark,
    powerOn() {
      dark = false;
      budget = Infinity;
    },
    tearNext(k) {
      tear = k;
    },
    contents(path) {
      const f = files.get(path);
      return f && f.slice();
    },
    paths: () => [...files.keys()].sort(),
    counts: zero(),
    resetCounts() {
      s.counts = zero();
    },
  };
  return s;
}
