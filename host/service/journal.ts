// The store's file: an append-only journal of JSON lines in a private data
// directory. What it guarantees:
// - an append is on disk (fsynced) before it returns, or it throws and the
//   file is cut back to its last whole line, so a failed append (EFBIG,
//   ENOSPC, EIO half-way through a line) can never glue itself to the next
//   acknowledged record; while the cut cannot be made, appends are refused;
// - replay reads the file in chunks, one line at a time, so its size is not
//   bounded by the largest string the runtime can build;
// - a rewrite (compaction) replaces the file atomically: a temp file is
//   written and fsynced, renamed over the journal, and the directory fsynced.
// The directory is 0700 and every file in it that this code writes is 0600:
// the journal holds API keys and device PINs.

import * as fs from 'node:fs';
import * as path from 'node:path';

export const JOURNAL_FILE = 'journal.jsonl';
const TEMP_SUFFIX = '.tmp';

/** A journal line longer than this is refused when written and skipped at replay. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
const READ_CHUNK = 1 << 20;
const WRITE_CHUNK = 1 << 20;

/** The file calls an append makes; a test hands in ones that fail. */
export interface JournalIo {
  /** fs.writeSync's shape: bytes written, possibly fewer than asked. */
  write(fd: number, buf: Buffer, offset: number, length: number): number;
  fsync(fd: number): void;
  truncate(fd: number, length: number): void;
}

export const NODE_IO: JournalIo = {
  write: (fd, buf, offset, length) => fs.writeSync(fd, buf, offset, length),
  fsync: (fd) => fs.fsyncSync(fd),
  truncate: (fd, length) => fs.ftruncateSync(fd, length),
};

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e && typeof e === 'object' && typeof e.code === 'string' ? e.code : err instanceof Error ? err.message : String(err);
}

/** Creates `dir` 0700, or narrows it to 0700 when it exists readable by others. */
export function privateDir(dir: string, log: (line: string) => void): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mode = fs.statSync(dir).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    try {
      fs.chmodSync(dir, 0o700);
    } catch (err) {
      throw new Error(`data directory ${dir} is open to other users (mode ${mode.toString(8)}) and cannot be made 0700: ${reason(err)}`);
    }
    log(`data: ${dir} was mode ${mode.toString(8)}; now 0700 (it holds keys and PINs)`);
  }
}

function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export interface ReplayResult {
  /** Lines skipped: torn, not JSON, too long, or refused by the store. */
  skipped: number;
}

export class Journal {
  readonly file: string;
  private readonly temp: string;
  private fd = -1;
  /** Bytes of whole lines in the file: where the next record starts. */
  size = 0;
  /** Why appends are refused: a failed append not cut back yet. */
  private damaged: string | undefined;

  constructor(
    readonly dir: string,
    private readonly io: JournalIo,
    private readonly log: (line: string) => void,
  ) {
    privateDir(dir, log);
    this.file = path.join(dir, JOURNAL_FILE);
    this.temp = this.file + TEMP_SUFFIX;
    // A compaction cut short before its rename: the journal itself is whole.
    fs.rmSync(this.temp, { force: true });
  }

  /**
   * Reads the file line by line and hands each parsed record and its size in
   * bytes (newline included) to `apply`, which says whether it took it. A
   * torn last line (an append cut short by a kill) is cut off. Then opens the
   * file for appending.
   */
  replay(apply: (rec: unknown, bytes: number) => boolean): ReplayResult {
    const result: ReplayResult = { skipped: 0 };
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.openForAppend();
      return result;
    }
    let whole = 0; // end of the last complete line
    try {
      const chunk = Buffer.allocUnsafe(READ_CHUNK);
      let parts: Buffer[] = [];
      let partBytes = 0;
      let tooLong = false;
      let lineNo = 0;
      let pos = 0;
      for (;;) {
        const n = fs.readSync(fd, chunk, 0, chunk.length, pos);
        if (n === 0) break;
        let start = 0;
        while (start < n) {
          const nl = chunk.indexOf(0x0a, start);
          const end = nl < 0 || nl >= n ? n : nl;
          if (end < n && partBytes === 0) {
            // The whole line is in this chunk (the usual case): no copy.
            lineNo++;
            this.line(lineNo, chunk.toString('utf8', start, end), end - start, apply, result);
            start = nl + 1;
            continue;
          }
          if (!tooLong) {
            if (partBytes + end - start > MAX_LINE_BYTES) {
              tooLong = true;
              parts = [];
            } else parts.push(Buffer.from(chunk.subarray(start, end)));
          }
          partBytes += end - start;
          if (end === n) break;
          lineNo++;
          if (tooLong) {
            result.skipped++;
            this.log(`journal: line ${lineNo} is over ${MAX_LINE_BYTES} bytes, skipped`);
          } else this.line(lineNo, Buffer.concat(parts, partBytes).toString('utf8'), partBytes, apply, result);
          parts = [];
          partBytes = 0;
          tooLong = false;
          start = nl + 1;
        }
        pos += n;
        whole = pos - partBytes;
      }
      if (partBytes > 0) {
        // The last append was cut short: it was never acknowledged. Drop it
        // so the next record starts on a line of its own.
        result.skipped++;
        this.log(`journal: ignoring a torn last line (${partBytes} bytes)`);
      }
    } finally {
      fs.closeSync(fd);
    }
    if (fs.statSync(this.file).size !== whole) fs.truncateSync(this.file, whole);
    this.openForAppend();
    return result;
  }

  /** One line of `bytes` bytes (newline not counted). */
  private line(lineNo: number, text: string, bytes: number, apply: (rec: unknown, bytes: number) => boolean, result: ReplayResult): void {
    if (bytes === 0) return;
    let rec: unknown;
    try {
      rec = JSON.parse(text);
    } catch {
      // A journal written before appends were cut back may hold a torn record
      // with a whole one glued after it. `{"op":"` cannot occur inside a JSON
      // string (its quotes would be escaped), so where it appears a record starts.
      for (let at = text.indexOf('{"op":"', 1); at > 0; at = text.indexOf('{"op":"', at + 1)) {
        let tail: unknown;
        try {
          tail = JSON.parse(text.slice(at));
        } catch {
          continue;
        }
        if (apply(tail, Buffer.byteLength(text.slice(at)) + 1)) {
          this.log(`journal: line ${lineNo} starts with ${at} bytes of a torn record; the record after them was kept`);
          return;
        }
      }
      result.skipped++;
      this.log(`journal: line ${lineNo} is not JSON, skipped`);
      return;
    }
    if (!apply(rec, bytes + 1)) {
      result.skipped++;
      this.log(`journal: line ${lineNo} has an unknown record, skipped`);
    }
  }

  private openForAppend(): void {
    this.fd = fs.openSync(this.file, 'a', 0o600);
    const st = fs.fstatSync(this.fd);
    if ((st.mode & 0o077) !== 0) {
      fs.fchmodSync(this.fd, 0o600);
      this.log(`data: ${JOURNAL_FILE} was mode ${(st.mode & 0o777).toString(8)}; now 0600`);
    }
    this.size = st.size;
  }

  /**
   * Writes one line (ending in a newline) and fsyncs it. On failure the file
   * is cut back to where the line began, and the error is thrown: the caller
   * answers that one write with an error, and the next append starts clean.
   */
  append(line: Buffer): void {
    if (this.damaged !== undefined) this.cutBack();
    try {
      this.writeAll(this.fd, line);
      this.io.fsync(this.fd);
    } catch (err) {
      this.damaged = reason(err);
      try {
        this.cutBack();
      } catch {
        // Logged by cutBack; appends stay refused until a later cut works.
      }
      throw err;
    }
    this.size += line.length;
  }

  private writeAll(fd: number, buf: Buffer): void {
    let off = 0;
    while (off < buf.length) {
      const n = this.io.write(fd, buf, off, buf.length - off);
      if (!(n > 0)) throw new Error('journal write made no progress');
      off += n;
    }
  }

  /** Truncates the file to its last whole line; throws while it cannot. */
  private cutBack(): void {
    const why = this.damaged;
    try {
      this.io.truncate(this.fd, this.size);
      this.io.fsync(this.fd);
    } catch (err) {
      this.log(`journal: an append failed (${why}) and the file cannot be cut back to ${this.size} bytes (${reason(err)}); writes are refused until it can`);
      throw new Error(`journal: a failed append is not cut back yet (${reason(err)})`);
    }
    this.damaged = undefined;
  }

  /**
   * Replaces the journal with the lines `dump` puts, atomically: a crash at
   * any point leaves either the old journal or the new one, whole. Returns
   * the new size. On failure the old journal stays in use.
   */
  rewrite(dump: (put: (line: string) => void) => void): number {
    fs.rmSync(this.temp, { force: true });
    const fd = fs.openSync(this.temp, 'ax', 0o600);
    let size = 0;
    try {
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = (): void => {
        this.writeAll(fd, Buffer.concat(pending, pendingBytes));
        size += pendingBytes;
        pending = [];
        pendingBytes = 0;
      };
      dump((line) => {
        const b = Buffer.from(line + '\n', 'utf8');
        pending.push(b);
        pendingBytes += b.length;
        if (pendingBytes >= WRITE_CHUNK) flush();
      });
      flush();
      this.io.fsync(fd);
      fs.renameSync(this.temp, this.file);
    } catch (err) {
      fs.closeSync(fd);
      fs.rmSync(this.temp, { force: true });
      throw err;
    }
    // The temp's descriptor now names the journal; it was opened for appending.
    const old = this.fd;
    this.fd = fd;
    this.size = size;
    this.damaged = undefined;
    fs.closeSync(old);
    try {
      fsyncDir(this.dir);
    } catch (err) {
      this.log(`journal: compacted, but the directory could not be fsynced (${reason(err)})`);
    }
    return size;
  }

  close(): void {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
  }
}
