// Account passwords at rest: scrypt (node:crypto) with a random salt, its cost
// kept in the stored hash so it can be raised later without locking anyone
// out. Hashes written before scrypt (one salted SHA-256, 64 hex characters)
// still verify; the store replaces them at the next good login.

import * as crypto from 'node:crypto';

export interface ScryptCost {
  /** CPU/memory cost, a power of two. */
  N: number;
  r: number;
  p: number;
}

/** About 50 ms and 16 MiB per hash on a desktop CPU: scrypt's interactive-login setting. */
export const DEFAULT_SCRYPT: ScryptCost = { N: 1 << 14, r: 8, p: 1 };

const KEY_BYTES = 32;
/** Stored costs beyond these are refused rather than run (a hand-edited journal could ask for gigabytes). */
const MAX_N = 1 << 20;
const MAX_R = 32;
const MAX_P = 16;

const SCRYPT_HASH = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([0-9a-f]{64})$/;
const LEGACY_HASH = /^[0-9a-f]{64}$/;

export type Verdict = 'ok' | 'ok-legacy' | 'wrong';

export function checkCost(c: ScryptCost): string | undefined {
  if (!Number.isSafeInteger(c.N) || c.N < 2 || c.N > MAX_N || (c.N & (c.N - 1)) !== 0) return `scrypt N must be a power of two from 2 to ${MAX_N}`;
  if (!Number.isSafeInteger(c.r) || c.r < 1 || c.r > MAX_R) return `scrypt r must be a whole number from 1 to ${MAX_R}`;
  if (!Number.isSafeInteger(c.p) || c.p < 1 || c.p > MAX_P) return `scrypt p must be a whole number from 1 to ${MAX_P}`;
  return undefined;
}

function scrypt(password: string, salt: string, c: ScryptCost): Buffer {
  return crypto.scryptSync(Buffer.from(password, 'utf8'), salt, KEY_BYTES, { N: c.N, r: c.r, p: c.p, maxmem: 256 * c.N * c.r * c.p + (1 << 20) });
}

/** The salted SHA-256 of the first journals; kept only to verify their records. */
export function legacyHash(salt: string, password: string): string {
  return crypto.createHash('sha256').update(salt).update('\0').update(password, 'utf8').digest('hex');
}

/** A new salt and the hash to store: `scrypt$N$r$p$<64 hex>`. */
export function hashPassword(password: string, cost: ScryptCost = DEFAULT_SCRYPT): { salt: string; hash: string } {
  const salt = crypto.randomBytes(16).toString('hex');
  return { salt, hash: `scrypt$${cost.N}$${cost.r}$${cost.p}$${scrypt(password, salt, cost).toString('hex')}` };
}

function same(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** Whether `password` matches a stored salt and hash; 'ok-legacy' when right but stored the old way. */
export function verifyPassword(salt: string, hash: string, password: string): Verdict {
  const m = SCRYPT_HASH.exec(hash);
  if (m) {
    const cost = { N: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
    if (checkCost(cost) !== undefined) return 'wrong';
    return same(scrypt(password, salt, cost), Buffer.from(m[4] as string, 'hex')) ? 'ok' : 'wrong';
  }
  if (LEGACY_HASH.test(hash)) {
    return same(Buffer.from(legacyHash(salt, password), 'hex'), Buffer.from(hash, 'hex')) ? 'ok-legacy' : 'wrong';
  }
  return 'wrong';
}
