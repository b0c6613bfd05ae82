// The FileStore port over node:fs, for the simulator and host runs. Paths are
// '/'-separated and relative to rootDir, as on the board. Writes are synced
// before returning so a killed host process behaves like a board after a cut:
// what a call completed is on disk.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileStore } from '../../src/ports/ports';

function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === 'ENOENT';
}

function writeSynced(file: string, bytes: Uint8Array, flags: 'w' | 'a'): void {
  // The owner's alone: the board's files hold its API key and Wi-Fi password.
  const fd = fs.openSync(file, flags, 0o600);
  try {
    fs.writeSync(fd, bytes);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Syncs a directory so a rename or unlink in it survives a crash (a no-op where unsupported). */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some platforms cannot open or sync a directory; the data itself is synced.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export function createNodeFileStore(rootDir: string): FileStore {
  const at = (p: string): string => path.join(rootDir, ...p.split('/').filter((s) => s !== ''));
  return {
    read(p) {
      try {
        const b = fs.readFileSync(at(p));
        return new Uint8Array(b.buffer, b.byteOffset, b.length);
      } catch (e) {
        if (isMissing(e)) return undefined;
        throw e;
      }
    },
    readAt(p, offset, length) {
      const fd = fs.openSync(at(p), 'r');
      try {
        const out = new Uint8Array(Math.max(0, length));
        let got = 0;
        while (got < out.length) {
          const n = fs.readSync(fd, out, got, out.length - got, offset + got);
          if (n === 0) break;
          got += n;
        }
        return out.subarray(0, got);
      } finally {
        fs.closeSync(fd);
      }
    },
    write(p, bytes) {
      writeSynced(at(p), bytes, 'w');
    },
    append(p, bytes) {
      writeSynced(at(p), bytes, 'a');
    },
    size(p) {
      try {
        return fs.statSync(at(p)).size;
      } catch (e) {
        if (isMissing(e)) return undefined;
        throw e;
      }
    },
    rename(from, to) {
      fs.renameSync(at(from), at(to));
      syncDir(path.dirname(at(to)));
    },
    remove(p) {
      fs.rmSync(at(p), { force: true });
    },
    list(dir) {
      try {
        return fs.readdirSync(at(dir));
      } catch (e) {
        if (isMissing(e)) return [];
        throw e;
      }
    },
    mkdir(dir) {
      fs.mkdirSync(at(dir), { recursive: true, mode: 0o700 });
    },
  };
}
