// Accounts, devices and their data, kept in memory and made durable by an
// append-only JSON-lines journal. Every mutation is written and fsynced
// before the caller is told it happened, so nothing acknowledged is lost
// when the process is killed. At start the journal is replayed; a torn last
// line (a write cut short by a kill) is cut off so later appends start clean.

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export type Format = 'Value' | 'JSON' | 'XML';

export interface Account {
  email: string;
  salt: string;
  hash: string;
  apiKey: string;
}

export interface HistoryEntry {
  at: string;
  content: string;
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
  history: HistoryEntry[];
}

type JournalRecord =
  | { op: 'account'; at: string; email: string; salt: string; hash: string; apiKey: string }
  | { op: 'device'; at: string; id: number; pin: number; name: string; crypto: string; format: Format; owner: string }
  | { op: 'write'; at: string; id: number; content: string };

export const JOURNAL_FILE = 'journal.jsonl';

export function hashPassword(salt: string, password: string): string {
  return crypto.createHash('sha256').update(salt).update('\0').update(password, 'utf8').digest('hex');
}

export class Store {
  readonly accounts = new Map<string, Account>(); // by e-mail
  readonly byKey = new Map<string, Account>();
  readonly devices = new Map<number, Device>();
  nextDeviceId = 1;
  /** Lines of the journal skipped at replay (torn or unreadable). */
  skippedLines = 0;
  private fd: number;

  constructor(
    readonly dataDir: string,
    readonly historyLimit = 1000,
    private readonly log: (line: string) => void = () => {},
  ) {
    fs.mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, JOURNAL_FILE);
    this.replay(file);
    this.fd = fs.openSync(file, 'a');
  }

  private replay(file: string): void {
    let buf: Buffer;
    try {
      buf = fs.readFileSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    const lastNl = buf.lastIndexOf(0x0a);
    const complete = lastNl + 1;
    if (complete < buf.length) {
      // The last append was cut short: it was never acknowledged. Drop it so
      // the next record starts on a line of its own.
      this.skippedLines++;
      this.log(`journal: ignoring a torn last line (${buf.length - complete} bytes)`);
      fs.truncateSync(file, complete);
    }
    const text = buf.subarray(0, complete).toString('utf8');
    let lineNo = 0;
    for (const line of text.split('\n')) {
      lineNo++;
      if (line === '') continue;
      let rec: JournalRecord;
      try {
        rec = JSON.parse(line) as JournalRecord;
      } catch {
        this.skippedLines++;
        this.log(`journal: line ${lineNo} is not JSON, skipped`);
        continue;
      }
      if (!this.apply(rec)) {
        this.skippedLines++;
        this.log(`journal: line ${lineNo} has an unknown record, skipped`);
      }
    }
  }

  private apply(rec: JournalRecord): boolean {
    switch (rec.op) {
      case 'account': {
        const acc: Account = { email: rec.email, salt: rec.salt, hash: rec.hash, apiKey: rec.apiKey };
        const old = this.accounts.get(rec.email);
        if (old) this.byKey.delete(old.apiKey);
        this.accounts.set(acc.email, acc);
        this.byKey.set(acc.apiKey, acc);
        return true;
      }
      case 'device': {
        this.devices.set(rec.id, {
          id: rec.id,
          pin: rec.pin,
          name: rec.name,
          crypto: rec.crypto,
          format: rec.format,
          owner: rec.owner,
          createdAt: rec.at,
          writes: 0,
          history: [],
        });
        if (rec.id >= this.nextDeviceId) this.nextDeviceId = rec.id + 1;
        return true;
      }
      case 'write': {
        const dev = this.devices.get(rec.id);
        if (!dev) return false;
        dev.content = rec.content;
        dev.lastAt = rec.at;
        dev.writes++;
        dev.history.push({ at: rec.at, content: rec.content });
        if (dev.history.length > this.historyLimit) dev.history.splice(0, dev.history.length - this.historyLimit);
        return true;
      }
      default:
        return false;
    }
  }

  /** Appends one record durably, then applies it. */
  private commit(rec: JournalRecord): void {
    const line = Buffer.from(JSON.stringify(rec) + '\n', 'utf8');
    let off = 0;
    while (off < line.length) off += fs.writeSync(this.fd, line, off, line.length - off);
    fs.fsyncSync(this.fd);
    this.apply(rec);
  }

  /**
   * The key of an account, creating the account on first use. Returns
   * undefined when the account exists with another password.
   */
  apiKeyFor(email: string, password: string): string | undefined {
    const acc = this.accounts.get(email);
    if (acc) {
      const given = Buffer.from(hashPassword(acc.salt, password), 'hex');
      const stored = Buffer.from(acc.hash, 'hex');
      return given.length === stored.length && crypto.timingSafeEqual(given, stored) ? acc.apiKey : undefined;
    }
    const salt = crypto.randomBytes(16).toString('hex');
    const apiKey = crypto.randomBytes(16).toString('hex');
    this.commit({ op: 'account', at: new Date().toISOString(), email, salt, hash: hashPassword(salt, password), apiKey });
    return apiKey;
  }

  accountByKey(key: string): Account | undefined {
    return this.byKey.get(key);
  }

  createDevice(owner: Account, name: string, cryptoName: string, format: Format): Device {
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
    fs.closeSync(this.fd);
  }
}
