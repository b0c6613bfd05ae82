// The persistent outbox: records wait on flash until acknowledged and survive
// a power cut at any byte. Under `dir`: append-only segment files of frames
// (frame.ts), and in c/ the cursor {s,o,n,d,r,w} (head segment and offset,
// next seq, dropped and rejected counts, last reject reason), replaced by a
// rename. A cut leaves at most a torn frame at the end of the newest segment:
// the boot scan ignores it and seals that segment. ack and reject save the
// cursor before they return, so at most the batch being acknowledged is sent
// again; a segment is deleted only after a cursor past it was saved. Drops are
// not saved on their own: after a cut the boot's bound check drops them again.
// The boot scan raises the next seq past every stored record.

import type { FileStore, Log } from '../ports/ports';
import { decodeUtf8 } from '../utf8';
import { FRAME_HEADER, checkFrame, decodeFrame, enc, encodeFrame, frameSeq, frameSize } from './frame';
import type { Outbox, OutboxRecord, OutboxStats } from './types';

export interface FileOutboxOptions {
  files: FileStore;
  /** Directory for the queue alone, e.g. 'q'. */
  dir: string;
  /** Bound on the bytes of queued records; the oldest are dropped beyond it. */
  maxBytes: number;
  /** Size at which a new segment file starts. Default 4096, one LittleFS block. */
  segmentBytes?: number;
  log?: Log;
  /** A held device's lane (src/agent/held.ts): unbounded itself, no lanes of its own. */
  lane?: boolean;
}


interface Cursor {
  s: number;
  o: number;
  n: number;
  d: number;
  r: number;
  w?: string;
}

/** Bytes read at a time by peek(): a few typical records. */
const PEEK_WINDOW = 512;
/**
 * Bytes read per record still wanted, up to PEEK_WINDOW (a longer record is
 * read again at its size): the uplink's peek wants one, and a whole window per
 * peek is a large array of garbage each time.
 */
const PER_RECORD = 160;

/**
 * Opens (or creates) the outbox in `dir`, rebuilding its state from the
 * files. Returns undefined when the file store cannot even list the
 * directory; the caller then falls back to createMemoryOutbox.
 */
export function createOutbox(o: FileOutboxOptions): Outbox | undefined {
  const files = o.files;
  let maxBytes = o.maxBytes;
  const segBytes = o.segmentBytes || 4096;
  // The cursor lives in a directory of its own: replaced on every
  // acknowledgement beside a backlog's segment files, it made LittleFS compact
  // their directory, which stalled the loop while a backlog drained.
  const curDir = o.dir + '/c';
  const curPath = curDir + '/cursor';
  const tmpPath = curPath + '.tmp';
  /** Where versions before this one kept it: read once, removed after the first save. */
  const oldPath = o.dir + '/cursor';
  let oldLeft = false;
  const name = (id: number): string => o.dir + '/seg-' + String(id).padStart(8, '0');
  const say = (m: string, e?: unknown): void => {
    // What was thrown, as the message of an Error and as itself otherwise.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    if (o.log) o.log.error('outbox: ' + m + (e === undefined ? '' : ': ' + (e instanceof Error ? e.message : String(e))));
  };

  let c: Cursor = { s: 0, o: 0, n: 1, d: 0, r: 0 };
  // The segments, oldest first, four numbers each (not an object each): its
  // id, the offset past its last intact frame, its records still queued, and 1
  // when its tail is torn or failed (appends then go to a new segment).
  const segs: number[] = [];
  /** Segments to delete once a cursor past them is saved. */
  const dead: number[] = [];
  /** Lanes an earlier boot left. */
  const found: string[] = [];
  let headOff = 0;
  let depth = 0;
  let live = 0;
  let nextId = 0;

  /** Saves the cursor (not when `cleanOnly`), then deletes the dead segments. */
  function save(cleanOnly?: boolean): void {
    if (!cleanOnly) {
      const any = segs.length > 0;
      c.s = any ? (segs[0] as number) : nextId;
      c.o = any ? headOff : 0;
      try {
        files.write(tmpPath, enc.encode(JSON.stringify(c)));
        files.rename(tmpPath, curPath);
      } catch (e) {
        say('cursor', e);
        return;
      }
      if (oldLeft) {
        try {
          files.remove(oldPath);
          oldLeft = false;
        } catch (e) {
          say('remove', e);
        }
      }
    }
    while (dead.length) {
      try {
        files.remove(name(dead[0]!));
      } catch (e) {
        say('remove', e);
        return;
      }
      dead.shift();
    }
  }

  /** Removes oldest records: at most k, and no more once `bytes` are freed. Returns how many. */
  function take(k: number, bytes: number): number {
    let done = 0;
    while (segs.length && done < k && bytes > 0) {
      const id = segs[0] as number;
      const end = segs[1] as number;
      const rest = end - headOff;
      let p = rest;
      let m = segs[2] as number;
      if (m > k - done || rest > bytes) {
        // Only part of this segment goes: walk its frame lengths a window at a
        // time, not the whole segment at every delivery.
        let b: Uint8Array | undefined;
        let from = 0;
        p = 0;
        m = 0;
        while (m < k - done && p < bytes && p < rest) {
          if (!b || p + FRAME_HEADER > from + b.length) {
            from = p;
            // Only the frame's header of the last one wanted.
            b = files.readAt(name(id), headOff + p, Math.min(rest - p, PEEK_WINDOW, (k - done - m - 1) * PER_RECORD + FRAME_HEADER), true);
          }
          p += frameSize(b, p - from) || rest;
          m++;
        }
      }
      done += m;
      bytes -= p;
      live -= p;
      depth -= m;
      headOff += p;
      if ((segs[2] = (segs[2] as number) - m) <= 0 || headOff >= end) {
        dead.push(id);
        segs.splice(0, 4);
        headOff = 0;
      }
    }
    return done;
  }

  /** Drops the oldest records until `extra` more bytes fit under maxBytes. */
  function fit(extra: number): void {
    if (live + extra > maxBytes) {
      c.d += take(Infinity, live + extra - maxBytes);
      if (dead.length) save();
    }
  }

  try {
    files.mkdir(o.dir);
    files.mkdir(curDir);
    let b = files.read(curPath);
    if (!b) {
      b = files.read(oldPath);
      oldLeft = !!b;
    }
    if (b) {
      try {
        const t = decodeUtf8(b);
        if (t === undefined) throw new Error('not UTF-8');
        const v = JSON.parse(t) as Record<string, unknown>;
        const w = typeof v.w;
        let ok = w === 'string' || w === 'undefined';
        for (const k of 'sondr') ok = ok && typeof v[k] === 'number';
        if (ok) c = v as unknown as Cursor;
        else say('cursor ignored');
      } catch (e) {
        say('cursor ignored', e);
      }
    }
    // Segment ids in ascending order, by insertion: a loop, not callbacks.
    const ids: number[] = [];
    for (const f of files.list(o.dir)) {
      // A held device's lane from an earlier boot, while it holds records: a
      // drained lane's segments are deleted, only its cursor stays.
      if (f.slice(0, 2) === 'h-' && files.list(o.dir + '/' + f).join(' ').indexOf('seg-') >= 0) found.push(f.slice(2));
      if (!/^seg-\d{8}$/.test(f)) continue;
      const id = +f.slice(4);
      let j = ids.length;
      for (; j > 0 && ids[j - 1]! > id; j--) ids[j] = ids[j - 1]!;
      ids[j] = id;
    }
    nextId = Math.max(c.s + 1, ids.length ? ids[ids.length - 1]! + 1 : 0);
    for (const id of ids) {
      if (id < c.s) {
        dead.push(id);
        continue;
      }
      const b = files.read(name(id)) || new Uint8Array(0);
      const from = id === c.s ? c.o : 0;
      let p = 0;
      let n = 0;
      let len: number;
      while ((len = checkFrame(b, p))) {
        const q = frameSeq(b, p) + 1;
        if (q > c.n) c.n = q;
        if (p >= from) {
          if (!n && !segs.length) headOff = p;
          n++;
          live += len;
        }
        p += len;
      }
      if (p < b.length) say('ignored ' + (b.length - p) + ' torn bytes in ' + name(id));
      // A segment with nothing queued holds only acknowledged or torn bytes.
      if (!n) dead.push(id);
      else {
        segs.push(id, p, n, p < b.length ? 1 : 0);
        depth += n;
      }
    }
    save(true);
    fit(0);
  } catch (e) {
    say('unusable', e);
    return undefined;
  }

  const box: Outbox = {
    push(r: OutboxRecord): boolean {
      const f = encodeFrame(r);
      if (!f || f.length > maxBytes) {
        say('record ' + r.seq + ' too large');
        return false;
      }
      // The last segment's place in segs, or -1 for a new one.
      let t = -1;
      let id = -1;
      try {
        fit(f.length);
        const last = segs.length - 4;
        t = last >= 0 && !segs[last + 3] && (segs[last + 1] as number) + f.length <= segBytes ? last : -1;
        id = t < 0 ? nextId++ : (segs[t] as number);
        // The segment's size is kept here: the store need not look it up.
        files.append(name(id), f, t < 0 ? 0 : segs[t + 1]);
      } catch (e) {
        say('push ' + r.seq, e);
        if (t >= 0) segs[t + 3] = 1;
        else if (id >= 0) {
          try {
            files.remove(name(id));
          } catch {
            // Left for the next boot scan, which drops segments without records.
          }
        }
        return false;
      }
      if (t < 0) {
        t = segs.length;
        segs.push(id, 0, 0, 0);
      }
      segs[t + 1] = (segs[t + 1] as number) + f.length;
      segs[t + 2] = (segs[t + 2] as number) + 1;
      depth++;
      live += f.length;
      if (r.seq >= c.n) c.n = r.seq + 1;
      return true;
    },

    peek(n: number): OutboxRecord[] {
      const out: OutboxRecord[] = [];
      try {
        for (let i = 0; i < segs.length && out.length < n; i += 4) {
          const file = name(segs[i] as number);
          const end = segs[i + 1] as number;
          // Read in small windows, not the whole segment: the uplink peeks
          // once or twice per request, and each read is garbage on the heap.
          for (let pos = i ? 0 : headOff; pos < end && out.length < n; ) {
            // Its segments are the outbox's own: the store need not look first.
            let b = files.readAt(file, pos, Math.min(end - pos, PEEK_WINDOW, (n - out.length) * PER_RECORD), true);
            let p = 0;
            let len: number;
            if (frameSize(b, 0) > b.length) b = files.readAt(file, pos, frameSize(b, 0), true);
            for (; out.length < n && (len = frameSize(b, p)) && p + len <= b.length; p += len) out.push(decodeFrame(b, p));
            if (!p) break;
            pos += p;
          }
        }
      } catch (e) {
        say('peek', e);
      }
      return out;
    },

    ack(k: number): void {
      if (k <= 0 || !depth) return;
      try {
        take(k, Infinity);
      } catch (e) {
        say('ack', e);
      }
      save();
    },

    reject(reason: string): void {
      try {
        if (!take(1, Infinity)) return;
      } catch (e) {
        say('reject', e);
        return;
      }
      c.r++;
      c.w = reason.slice(0, 60);
      save();
    },

    setMaxBytes(n: number): void {
      maxBytes = n;
      try {
        fit(0);
      } catch (e) {
        say('resize', e);
      }
    },

    undrop(n: number): void {
      c.d = Math.max(0, c.d - n);
    },

    stats(): OutboxStats {
      const st: OutboxStats = { depth, bytes: live, dropped: c.d, rejected: c.r, nextSeq: c.n };
      if (c.w !== undefined) st.lastReject = c.w;
      return st;
    },

    nextSeq(): number {
      return c.n++;
    },
  };
  if (!o.lane) {
    box.found = found;
    box.openLane = (device) => createOutbox({ files, dir: o.dir + '/h-' + device, maxBytes: Infinity, segmentBytes: segBytes, log: o.log, lane: true });
    box.full = (s, bytes) => s.bytes + bytes > maxBytes;
  }
  return box;
}
