// How one record is stored in a segment file. Every frame carries its length
// and checksum, so a scan tells a whole frame from a torn one at any byte.
//
//   0      magic 0xA5
//   1..4   CRC-32 (little-endian) of bytes 5 .. end
//   5..6   body length L (little-endian)
//   7..    body: varint seq, varint uptimeMs, varint bootId,
//          varint (wallMs + 1, 0 = unknown), varint device byte length,
//          device (UTF-8), payload (UTF-8, the rest)
// Varints: 7 bits per byte, low first.

import { decodeUtf8, isUtf8 } from '../utf8';
import { crc32 } from './crc32';
import type { OutboxRecord } from './types';

export const FRAME_HEADER = 7;
const MAGIC = 0xa5;
/** One encoder for the outbox's files (the cursor too). */
export const enc = new TextEncoder();

function putVar(out: number[], x: number): void {
  // Plain arithmetic, not bit operators: wall-clock ms do not fit in 32 bits.
  x = x > 0 ? Math.floor(x) : 0;
  while (x >= 128) {
    out.push((x % 128) + 128);
    x = Math.floor(x / 128);
  }
  out.push(x);
}

/** The stored form of r, or undefined when its body exceeds 65,535 bytes. */
export function encodeFrame(r: OutboxRecord): Uint8Array | undefined {
  const dev = enc.encode(r.device);
  const pay = enc.encode(r.payload);
  const h: number[] = [];
  putVar(h, r.seq);
  putVar(h, r.uptimeMs);
  putVar(h, r.bootId);
  putVar(h, r.wallMs === undefined ? 0 : r.wallMs + 1);
  putVar(h, dev.length);
  const len = h.length + dev.length + pay.length;
  if (len > 0xffff) return undefined;
  const f = new Uint8Array(FRAME_HEADER + len);
  f[0] = MAGIC;
  f[5] = len;
  f[6] = len >> 8;
  f.set(h, FRAME_HEADER);
  f.set(dev, FRAME_HEADER + h.length);
  f.set(pay, FRAME_HEADER + h.length + dev.length);
  const c = crc32(f, 5, f.length);
  f[1] = c;
  f[2] = c >>> 8;
  f[3] = c >>> 16;
  f[4] = c >>> 24;
  return f;
}

/** Length of the frame at p as its header declares it; 0 when the header is cut off. */
export function frameSize(b: Uint8Array, p: number): number {
  return p + FRAME_HEADER > b.length ? 0 : FRAME_HEADER + b[p + 5]! + b[p + 6]! * 256;
}

/** Length of the frame at p when it is complete and intact, its texts UTF-8, else 0. */
export function checkFrame(b: Uint8Array, p: number): number {
  const n = frameSize(b, p);
  if (!n || b[p] !== MAGIC || p + n > b.length) return 0;
  const c = b[p + 1]! | (b[p + 2]! << 8) | (b[p + 3]! << 16) | (b[p + 4]! << 24);
  if (crc32(b, p + 5, p + n) !== c >>> 0) return 0;
  // We only ever write UTF-8, but text that is not would overrun the
  // runtime's decoder: such a frame is as bad as a torn one.
  at = p + FRAME_HEADER;
  for (let i = 0; i < 4; i++) num(b);
  const dl = num(b);
  const d = at + dl;
  return d <= p + n && isUtf8(b, at, d) && isUtf8(b, d, p + n) ? n : 0;
}

// Read position of num(): module state instead of a closure or a returned
// pair, so decoding allocates nothing but the record itself.
let at = 0;

function num(b: Uint8Array): number {
  let x = 0;
  let m = 1;
  let v: number;
  do {
    v = b[at++] || 0;
    x += (v & 127) * m;
    m *= 128;
  } while (v > 127);
  return x;
}

/** The record in the (checked) frame at p. */
export function decodeFrame(b: Uint8Array, p: number): OutboxRecord {
  const end = p + frameSize(b, p);
  at = p + FRAME_HEADER;
  const seq = num(b);
  const uptimeMs = num(b);
  const bootId = num(b);
  const wall = num(b);
  const dl = num(b);
  // Checked frames are UTF-8; should flash change under a peek, U+FFFD stands in.
  const device = decodeUtf8(b.subarray(at, at + dl));
  const payload = decodeUtf8(b.subarray(at + dl, end));
  const r: OutboxRecord = {
    seq,
    device: device === undefined ? '\ufffd' : device,
    payload: payload === undefined ? '\ufffd' : payload,
    uptimeMs,
    bootId,
  };
  if (wall) r.wallMs = wall - 1;
  return r;
}

/** The seq of the (checked) frame at p, without decoding the rest. */
export function frameSeq(b: Uint8Array, p: number): number {
  at = p + FRAME_HEADER;
  return num(b);
}
