// The store's secrets on disk: the data directory is 0700 and its files 0600
// (the journal holds API keys and PINs), and passwords are hashed with scrypt;
// an account stored with the old salted SHA-256 still logs in and is moved to
// scrypt at that login.

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { JOURNAL_FILE, Store } from '../../host/service/store';
import { call, provision, serviceHarness } from './helpers';

const h = serviceHarness();
afterEach(() => h.cleanup());

const mode = (p: string): number => fs.statSync(p).mode & 0o777;

interface AccountLine {
  op: string;
  email: string;
  salt: string;
  hash: string;
  apiKey: string;
}

function accountLines(dir: string): AccountLine[] {
  return fs
    .readFileSync(path.join(dir, JOURNAL_FILE), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AccountLine)
    .filter((r) => r.op === 'account');
}

describe('data directory and journal permissions', () => {
  it('creates the data directory 0700 and the journal 0600, whatever the umask lets through', async () => {
    const dir = path.join(h.dir(), 'nested', 'data');
    const old = process.umask(0o022);
    try {
      const svc = await h.start({ dataDir: dir });
      await provision(svc.port, 'Value');
    } finally {
      process.umask(old);
    }
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(dir, JOURNAL_FILE))).toBe(0o600);
  });

  it('narrows an existing directory and journal open to others, and says so once', async () => {
    const dir = h.dir();
    let svc = await h.start({ dataDir: dir });
    await provision(svc.port, 'Value');
    await svc.close();
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(path.join(dir, JOURNAL_FILE), 0o644);
    const logs: string[] = [];
    svc = await h.start({ dataDir: dir, log: (l) => logs.push(l) });
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(dir, JOURNAL_FILE))).toBe(0o600);
    expect(logs.filter((l) => l.startsWith('data:'))).toEqual([
      `data: ${dir} was mode 755; now 0700 (it holds keys and PINs)`,
      'data: journal.jsonl was mode 644; now 0600',
    ]);
  });
});

describe('password hashes', () => {
  it('are scrypt with a random salt: the password is not in the journal, same password gives other hashes', async () => {
    const dir = h.dir();
    const svc = await h.start({ dataDir: dir });
    await provision(svc.port, 'Value', 'a@example.com', 'correct horse');
    await provision(svc.port, 'Value', 'b@example.com', 'correct horse');
    const [a, b] = accountLines(dir);
    expect(a?.hash).toMatch(/^scrypt\$16384\$8\$1\$[0-9a-f]{64}$/);
    expect(b?.hash).toMatch(/^scrypt\$16384\$8\$1\$[0-9a-f]{64}$/);
    expect(a?.hash).not.toBe(b?.hash);
    expect(fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8')).not.toContain('correct horse');
    expect((await call(svc.port, 'GET', '/api/generateapikey/a%40example.com/correct%20horse')).status).toBe(200);
    expect((await call(svc.port, 'GET', '/api/generateapikey/a%40example.com/correct%20hors')).status).toBe(401);
  });

  it('stored as salted SHA-256 by an older journal still log in, and are replaced by scrypt at the next good login', async () => {
    const dir = h.dir();
    fs.mkdirSync(dir, { recursive: true });
    const at = '2026-01-01T00:00:00.000Z';
    const salt = '00112233445566778899aabbccddeeff';
    const sha = crypto.createHash('sha256').update(salt).update('\0').update('old-secret', 'utf8').digest('hex');
    const key = 'ab'.repeat(16);
    fs.writeFileSync(
      path.join(dir, JOURNAL_FILE),
      [
        { op: 'account', at, email: 'old@example.com', salt, hash: sha, apiKey: key },
        { op: 'device', at, id: 1, pin: 4321, name: 'old', crypto: 'None', format: 'Value', owner: 'old@example.com' },
        { op: 'write', at, id: 1, content: '5' },
      ]
        .map((r) => JSON.stringify(r) + '\n')
        .join(''),
    );
    const logs: string[] = [];
    let svc = await h.start({ dataDir: dir, log: (l) => logs.push(l) });
    expect((await call(svc.port, 'GET', '/api/generateapikey/old%40example.com/wrong')).status).toBe(401);
    expect(accountLines(dir)).toHaveLength(1); // a wrong password changes nothing
    const ok = await call(svc.port, 'GET', '/api/generateapikey/old%40example.com/old-secret');
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ APIKey: key });
    const lines = accountLines(dir);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ email: 'old@example.com', apiKey: key, hash: expect.stringMatching(/^scrypt\$/) });
    expect(logs).toContain('accounts: a password hash was upgraded from SHA-256 to scrypt');
    expect(logs.join('\n')).not.toContain('old-secret');
    await svc.close();

    svc = await h.start({ dataDir: dir });
    expect((await call(svc.port, 'GET', '/api/generateapikey/old%40example.com/old-secret')).body).toBe(JSON.stringify({ APIKey: key }));
    expect((await call(svc.port, 'GET', '/api/generateapikey/old%40example.com/wrong')).status).toBe(401);
    expect(accountLines(dir)).toHaveLength(2); // upgraded once
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${key}/1/4321`)).body).toBe('5');
  });

  it('checkPassword tells a right password from a wrong one and an unknown e-mail, creating nothing', () => {
    const dir = h.dir();
    const store = new Store({ dataDir: dir });
    try {
      const key = store.apiKeyFor('c@example.com', 'pw');
      expect(store.checkPassword('c@example.com', 'pw')?.apiKey).toBe(key);
      expect(store.checkPassword('c@example.com', 'pW')).toBeUndefined();
      expect(store.checkPassword('nobody@example.com', 'pw')).toBeUndefined();
      expect(store.accounts.size).toBe(1);
    } finally {
      store.close();
    }
  });
});
