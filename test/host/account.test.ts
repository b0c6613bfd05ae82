// npm start's account (host/account.ts): the simulated account's password is
// random per data directory and kept in a file only its owner reads; for
// --url the password comes from the environment or a prompt that echoes
// nothing, never from the command line.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { ReadStream } from 'node:tty';
import { afterAll, describe, expect, it } from 'vitest';
import { ACCOUNT_FILE, PASSWORD_OPTION_REFUSED, askHidden, simAccount, urlPassword } from '../../host/account';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'account-'));
  dirs.push(d);
  return d;
}
const mode = (p: string): number => statSync(p).mode & 0o777;

/** A terminal for askHidden: what is typed goes in, what it prints is kept, raw mode recorded. */
function terminal() {
  const input = new PassThrough() as unknown as ReadStream & PassThrough;
  const modes: boolean[] = [];
  let raw = false;
  Object.defineProperty(input, 'isRaw', { get: () => raw });
  Object.assign(input, {
    isTTY: true,
    setRawMode(on: boolean) {
      raw = on;
      modes.push(on);
      return input;
    },
  });
  const output = new PassThrough();
  let shown = '';
  output.on('data', (b: Buffer) => (shown += b.toString()));
  return { t: { input, output }, input, modes, shown: () => shown };
}

describe('the simulated account of a data directory', () => {
  it('is made once with a random password, in a file only its owner reads, and read back after', () => {
    const data = join(tmp(), 'data');
    const a = simAccount(data, join(data, 'service'));
    expect(a).toMatchObject({ email: 'sim@example.com', made: true, file: join(data, ACCOUNT_FILE) });
    expect(a.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(a.password).not.toBe('sim-password-1');
    expect(mode(a.file)).toBe(0o600);
    expect(mode(data)).toBe(0o700);
    expect(JSON.parse(readFileSync(a.file, 'utf8'))).toEqual({ email: a.email, password: a.password });
    const again = simAccount(data, join(data, 'service'));
    expect(again).toEqual({ ...a, made: false });
  });

  it('differs between data directories', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const d = tmp();
      seen.add(simAccount(d, join(d, 'service')).password);
    }
    expect(seen.size).toBe(5);
  });

  it("names a new address when the service's directory already holds data (its sim@example.com may have an older password)", () => {
    const d = tmp();
    mkdirSync(join(d, 'service'));
    writeFileSync(join(d, 'service', 'journal.jsonl'), '{}\n');
    expect(simAccount(d, join(d, 'service')).email).toMatch(/^sim-[0-9a-f]{8}@example\.com$/);
  });

  it('makes a file left readable by others private again, and refuses one that holds no account in one line', () => {
    const d = tmp();
    const file = join(d, ACCOUNT_FILE);
    writeFileSync(file, JSON.stringify({ email: 'me@example.com', password: 'a-password-of-some-length' }), { mode: 0o644 });
    expect(simAccount(d, join(d, 'service'))).toMatchObject({ email: 'me@example.com', made: false });
    expect(mode(file)).toBe(0o600);
    writeFileSync(file, '{"email":"me@example.com","password":"short"}');
    expect(() => simAccount(d, join(d, 'service'))).toThrow(/^[^\n]*sim-account\.json: not the simulated account[^\n]*$/);
    expect(() => simAccount(d, join(d, 'service'))).not.toThrow(/short/);
  });
});

describe("the account's password for --url", () => {
  it('comes from PDA_PASSWORD first', async () => {
    expect(await urlPassword('me@example.com', { PDA_PASSWORD: 'from-the-env' }, undefined)).toBe('from-the-env');
  });

  it('without it and without a terminal: one line saying how to give it', async () => {
    await expect(urlPassword('me@example.com', {}, undefined)).rejects.toThrow(
      '--url: the password of me@example.com is needed to provision: set PDA_PASSWORD in the environment, or run in a terminal to be asked',
    );
  });

  it('the refusal of --password is one line that says how to give it', () => {
    expect(PASSWORD_OPTION_REFUSED).not.toContain('\n');
    expect(PASSWORD_OPTION_REFUSED).toMatch(/^--password: refused.*PDA_PASSWORD.*terminal/);
  });

  it('is asked in a terminal in raw mode, nothing of it echoed; backspace takes a character back, the rest of the line stays for the console', async () => {
    const { t, input, modes, shown } = terminal();
    const got = urlPassword('me@example.com', {}, t);
    input.write('s3cret-');
    input.write('typedX\u007f-here\rstatus()\r');
    expect(await got).toBe('s3cret-typed-here');
    expect(shown()).toBe('password of me@example.com (not shown): \n');
    expect(modes).toEqual([true, false]);
    const rest = input.read() as Buffer | null;
    expect(String(rest)).toBe('status()\r');
  });

  it('an empty answer provisions nothing', async () => {
    const { t, input } = terminal();
    const got = urlPassword('me@example.com', {}, t);
    input.write('\r');
    await expect(got).rejects.toThrow('--url: no password typed for me@example.com; nothing provisioned');
  });

  it('askHidden leaves the terminal as it found it', async () => {
    const { t, input, modes } = terminal();
    input.setRawMode(true);
    const got = askHidden('? ', t);
    input.write('x\n');
    expect(await got).toBe('x');
    expect(modes).toEqual([true, true, true]);
  });
});
