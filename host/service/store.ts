// Accounts, devices and their data, kept in memory and made durable by an
// append-only JSON-lines journal (journal.ts). Every mutation is written and
// fsynced before the caller is told it happened, so nothing acknowledged is
// lost when the process is killed; a failed append is cut back and throws.
// Everything held is bounded: accounts, devices per account, and each
// device's history (entries and bytes). The journal is compacted (rewritten
// from the state) once it grows past `compactRatio` times the live state.

import * as crypto from 'node:crypto';

import { Journal, MAX_LINE_BYTES, NODE_IO } from './journal';
import type { JournalIo } from './journal';
import { DEFAULT_SCRYPT, checkCost, hashPassword, verifyPassword } from './password';
import type { ScryptCost } from './password';

export { JOURNAL_FILE } from './journal';

export type Format = 'Value' | 'JSON' | 'XML';

export interface Account {
  email: string;
  salt: string;
  /** `scrypt$N$r$p$<hex>`, or a legacy salted SHA-256 (64 hex) until the next good login. */
  hash: string;
  apiKey: string;
  createdAt: string;
}

export interface HistoryEntry {
  at: string;
  content: string;
  /** Size of its journal line, newline included. */
  bytes: number;
}

export interface Device {
  id: number;
  pin: number;
  name: string;
  crypto: string;
  format: Format;
  owner: string; // account e-mail
  createdAt: string;
  /** Current content; undefined until the first write. */
  content?: string;
  lastAt?: string;
  writes: number;
  /** The last writes, oldest first, bounded by historyLimit and historyBytes (at least the latest is kept). */
  history: HistoryEntry[];
  /** Sum of the history entries' bytes. */
  historyBytes: number;
}

type JournalRecord =
  | { op: 'account'; at: string; email: string; salt: string; hash: string; apiKey: string }
  // `writes`: writes made before the first write record that follows (set by compaction).
  | { op: 'device'; at: string; id: number; pin: number; name: string; crypto: string; format: Format; owner: string; writes?: number }
  | { op: 'write'; at: string; id: number; content: string };

export interface StoreOptions {
  dataDir: string;
  /** History entries kept per device. Default 1000. */
  historyLimit?: number;
  /** Journal bytes of the history kept per device (the latest write is always kept). Default 256 KiB. */
  historyBytes?: number;
  /** Accounts the service holds; a new one beyond is refused (403). Default 100. */
  maxAccounts?: number;
  /** Devices per account; one more is refused (403). Default 100. */
  maxDevicesPerAccount?: number;
  /** Compact when the journal is over this many times the live state... Default 4. */
  compactRatio?: number;
  /** ...and over this many bytes. Default 1 MiB. */
  compactMinBytes?: number;
  /** Cost of new password hashes. Default N 16384, r 8, p 1. */
  scrypt?: ScryptCost;
  /** The journal's file calls (tests inject failing ones). */
  io?: Partial<JournalIo>;
  log?: (line: string) => void;
}

export const STORE_DEFAULTS = {
  historyLimit: 1000,
  historyBytes: 256 * 1024,
  maxAccounts: 100,
  maxDevicesPerAccount: 100,
  compactRatio: 4,
  compactMinBytes: 1024 * 1024,
} as const;

/** A refusal by the store's limits: the status and one line to answer with. */
export class StoreRefusal extends Error {
  constructor(
    readonly status: 403 | 413,
    message: string,
  ) {
    super(message);
  }
}

const FORMATS: readonly string[] = ['Value', 'JSON', 'XML'];

function whole(name: string, v: number | undefined, dflt: number, min: number): number {
  if (v === undefined) return dflt;
  if (!Number.isSafeInteger(v) || v < min) throw new Error(`${name} must be a whole number from ${min}`);
  return v;
}

const isStr = (v: unknown): v is string => typeof v === 'string';
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Whether a parsed journal line has the fields its op needs, of the right types. */
function isRecord(r: unknown): r is JournalRecord {
  if (!r || typeof r !== 'object') return false;
  const o = r as Record<string, unknown>;
  if (!isStr(o.at)) return false;
  switch (o.op) {
    case 'account':
      return isStr(o.email) && isStr(o.salt) && isStr(o.hash) && isStr(o.apiKey);
    case 'device':
      return isInt(o.id) && isInt(o.pin) && isStr(o.name) && isStr(o.crypto) && isStr(o.format) && FORMATS.includes(o.format) &&
        isStr(o.owner) && (o.writes === undefined || isInt(o.writes));
    case 'write':
      return isInt(o.id) && isStr(o.content);
    default:
      return false;
  }
}

export class Store {
  readonly accounts = new Map<string, Account>(); // by e-mail
  readonly byKey = new Map<string, Account>();
  readonly devices = new Map<number, Device>();
  nextDeviceId = 1;
  /** Lines of the journal skipped at replay (torn or unreadable). */
  skippedLines = 0;
  readonly dataDir: string;
  readonly historyLimit: number;
  readonly historyBytes: number;
  readonly maxAccounts: number;
  readonly maxDevicesPerAccount: number;
  private readonly compactRatio: number;
  private readonly compactMinBytes: number;
  private readonly scryptCost: ScryptCost;
  private readonly log: (line: string) => void;
  private readonly journal: Journal;
  private readonly devicesOf = new Map<string, number>(); // device count by owner e-mail
  private readonly accountBytes = new Map<string, number>(); // journal line of each account's record
  private readonly deviceBytes = new Map<number, number>(); // journal line of each device's record
  /** Journal bytes a compaction would write (estimated between compactions). */
  private liveBytes = 0;
  private replaying = true;
  /** After a failed compaction, the journal size at which to try again. */
  private compactRetryAt = 0;

  constructor(o: StoreOptions) {
    this.dataDir = o.dataDir;
    this.historyLimit = whole('historyLimit', o.historyLimit, STORE_DEFAULTS.historyLimit, 1);
    this.historyBytes = whole('historyBytes', o.historyBytes, STORE_DEFAULTS.historyBytes, 1);
    this.maxAccounts = whole('maxAccounts', o.maxAccounts, STORE_DEFAULTS.maxAccounts, 1);
    this.maxDevicesPerAccount = whole('maxDevicesPerAccount', o.maxDevicesPerAccount, STORE_DEFAULTS.maxDevicesPerAccount, 1);
    this.compactRatio = whole('compactRatio', o.compactRatio, STORE_DEFAULTS.compactRatio, 2);
    this.compactMinBytes = whole('compactMinBytes', o.compactMinBytes, STORE_DEFAULTS.compactMinBytes, 0);
    this.scryptCost = o.scrypt ?? DEFAULT_SCRYPT;
    const bad = checkCost(this.scryptCost);
    if (bad) throw new Error(bad);
    this.log = o.log ?? (() => {});
    this.journal = new Journal(o.dataDir, { ...NODE_IO, ...o.io }, this.log);
    // Limits are not applied to what is already journaled: lowering one keeps
    // existing accounts and devices and refuses only new ones.
    this.skippedLines = this.journal.replay((rec, bytes) => isRecord(rec) && this.apply(rec, bytes)).skipped;
    this.replaying = false;
    for (const dev of this.devices.values()) this.trim(dev);
    this.compactIfDue();
  }

  private apply(rec: JournalRecord, bytes: number): boolean {
    switch (rec.op) {
      case 'account': {
        const old = this.accounts.get(rec.email);
        const acc: Account = { email: rec.email, salt: rec.salt, hash: rec.hash, apiKey: rec.apiKey, createdAt: old ? old.createdAt : rec.at };
        if (old) this.byKey.delete(old.apiKey);
        this.accounts.set(acc.email, acc);
        this.byKey.set(acc.apiKey, acc);
        this.liveBytes += bytes - (this.accountBytes.get(rec.email) ?? 0);
        this.accountBytes.set(rec.email, bytes);
        return true;
      }
      case 'device': {
        const old = this.devices.get(rec.id);
        if (old) this.forget(old);
        this.devices.set(rec.id, {
          id: rec.id,
          pin: rec.pin,
          name: rec.name,
          crypto: rec.crypto,
          format: rec.format,
          owner: rec.owner,
          createdAt: rec.at,
          writes: rec.writes ?? 0,
          history: [],
          historyBytes: 0,
        });
        this.devicesOf.set(rec.owner, (this.devicesOf.get(rec.owner) ?? 0) + 1);
        this.deviceBytes.set(rec.id, bytes);
        this.liveBytes += bytes;
        if (rec.id >= this.nextDeviceId) this.nextDeviceId = rec.id + 1;
        return true;
      }
      case 'write': {
        const dev = this.devices.get(rec.id);
        if (!dev) return false;
        dev.content = rec.content;
        dev.lastAt = rec.at;
        dev.writes++;
        dev.history.push({ at: rec.at, content: rec.content, bytes });
        dev.historyBytes += bytes;
        this.liveBytes += bytes;
        // Replay trims in batches (one splice per limit's worth of writes, not
        // one per write), then exactly once it is done.
        const slack = this.replaying ? 2 : 1;
        if (dev.history.length > slack * this.historyLimit || dev.historyBytes > slack * this.historyBytes) this.trim(dev);
        return true;
      }
    }
  }

  /** Drops the oldest history entries beyond historyLimit and historyBytes, keeping the latest. */
  private trim(dev: Device): void {
    let drop = 0;
    while (dev.history.length - drop > 1 && (dev.history.length - drop > this.historyLimit || dev.historyBytes > this.historyBytes)) {
      const gone = (dev.history[drop] as HistoryEntry).bytes;
      dev.historyBytes -= gone;
      this.liveBytes -= gone;
      drop++;
    }
    if (drop > 0) dev.history.splice(0, drop);
  }

  /** Takes a device replaced by a later record of the same id out of the counts. */
  private forget(dev: Device): void {
    this.devicesOf.set(dev.owner, (this.devicesOf.get(dev.owner) ?? 1) - 1);
    this.liveBytes -= dev.historyBytes + (this.deviceBytes.get(dev.id) ?? 0);
  }

  /** Appends one record durably, then applies it; throws (nothing applied) when the append fails. */
  private commit(rec: JournalRecord): void {
    const line = Buffer.from(JSON.stringify(rec) + '\n', 'utf8');
    if (line.length > MAX_LINE_BYTES) throw new StoreRefusal(413, `record of ${line.length} bytes is over the journal's limit of ${MAX_LINE_BYTES}`);
    this.journal.append(line);
    this.apply(rec, line.length);
    this.compactIfDue();
  }

  private compactIfDue(): void {
    const size = this.journal.size;
    if (size < this.compactMinBytes || size <= this.compactRatio * this.liveBytes || size < this.compactRetryAt) return;
    try {
      const after = this.journal.rewrite((put) => this.dump(put));
      this.liveBytes = after;
      this.compactRetryAt = 0;
      this.log(`journal: compacted from ${size} to ${after} bytes`);
    } catch (err) {
      // The old journal is whole and stays in use; the write that got here
      // is durable in it. Try again once the journal has grown by half.
      this.compactRetryAt = size + Math.floor(size / 2);
      const e = err as NodeJS.ErrnoException;
      this.log(`journal: compaction failed (${e && e.code ? e.code : String(err)}); appending to the old journal, next try at ${this.compactRetryAt} bytes`);
    }
  }

  /** The state as journal lines: what a replay of them rebuilds. */
  private dump(put: (line: string) => void): void {
    for (const a of this.accounts.values()) {
      put(JSON.stringify({ op: 'account', at: a.createdAt, email: a.email, salt: a.salt, hash: a.hash, apiKey: a.apiKey }));
    }
    const ids = [...this.devices.keys()].sort((x, y) => x - y);
    for (const id of ids) {
      const d = this.devices.get(id) as Device;
      const rec: JournalRecord = { op: 'device', at: d.createdAt, id, pin: d.pin, name: d.name, crypto: d.crypto, format: d.format, owner: d.owner };
      const before = d.writes - d.history.length;
      if (before > 0) rec.writes = before;
      put(JSON.stringify(rec));
      for (const e of d.history) put(JSON.stringify({ op: 'write', at: e.at, id, content: e.content }));
    }
  }

  /** The account with this e-mail when the password is right (a legacy hash is upgraded). */
  checkPassword(email: string, password: string): Account | undefined {
    const acc = this.accounts.get(email);
    if (!acc) {
      hashPassword(password, this.scryptCost); // the same time as a wrong password
      return undefined;
    }
    const verdict = verifyPassword(acc.salt, acc.hash, password);
    if (verdict === 'wrong') return undefined;
    if (verdict === 'ok-legacy') this.rehash(acc, password);
    return acc;
  }

  /** Replaces a legacy SHA-256 record by a scrypt one; the login succeeds even if that cannot be stored. */
  private rehash(acc: Account, password: string): void {
    const { salt, hash } = hashPassword(password, this.scryptCost);
    try {
      this.commit({ op: 'account', at: acc.createdAt, email: acc.email, salt, hash, apiKey: acc.apiKey });
      this.log('accounts: a password hash was upgraded from SHA-256 to scrypt');
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      this.log(`accounts: a password hash could not be upgraded to scrypt (${e && e.code ? e.code : String(err)}); tried again at its next login`);
    }
  }

  /**
   * The key of an account, creating the account on first use. Returns
   * undefined when the account exists with another password. Throws a
   * StoreRefusal (403) for a new account beyond maxAccounts.
   */
  apiKeyFor(email: string, password: string): string | undefined {
    if (this.accounts.has(email)) {
      const acc = this.checkPassword(email, password);
      return acc ? acc.apiKey : undefined;
    }
    if (this.accounts.size >= this.maxAccounts) {
      throw new StoreRefusal(403, `account limit reached: this service holds at most ${this.maxAccounts} accounts`);
    }
    const apiKey = crypto.randomBytes(16).toString('hex');
    const { salt, hash } = hashPassword(password, this.scryptCost);
    this.commit({ op: 'account', at: new Date().toISOString(), email, salt, hash, apiKey });
    return apiKey;
  }

  accountByKey(key: string): Account | undefined {
    return this.byKey.get(key);
  }

  /** Throws a StoreRefusal (403) when the account holds maxDevicesPerAccount devices already. */
  createDevice(owner: Account, name: string, cryptoName: string, format: Format): Device {
    if ((this.devicesOf.get(owner.email) ?? 0) >= this.maxDevicesPerAccount) {
      throw new StoreRefusal(403, `device limit reached: an account holds at most ${this.maxDevicesPerAccount} devices`);
    }
    const id = this.nextDeviceId;
    const pin = crypto.randomInt(1000, 1000000); // 4 to 6 digits
    this.commit({ op: 'device', at: new Date().toISOString(), id, pin, name, crypto: cryptoName, format, owner: owner.email });
    return this.devices.get(id) as Device;
  }

  write(dev: Device, content: string): string {
    const at = new Date().toISOString();
    this.commit({ op: 'write', at, id: dev.id, content });
    return at;
  }

  close(): void {
    this.journal.close();
  }
}
