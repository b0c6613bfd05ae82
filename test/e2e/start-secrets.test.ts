// `npm start` and the account's password. With the local service the
// simulated account's password is random per data directory, kept in a file
// only its owner reads (the fixed one of earlier versions opens nothing); the
// board's config is private too. With --url the password comes from
// PDA_PASSWORD or is typed at a prompt that echoes nothing; --password on the
// command line is refused in one line that does not repeat it.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_OPTION_REFUSED } from '../../host/account';
import { startService } from '../../host/service/server';
import type { RunningService } from '../../host/service/server';
import { watchOutput } from '../fakes/child';

const loader = pathToFileURL(join(dirname(realpathSync('node_modules/.bin/tsx')), 'loader.mjs')).href;
const PTY = fileURLToPath(new URL('./pty-run.py', import.meta.url));
const hasPty = spawnSync('python3', ['-c', 'import pty, termios, fcntl'], { stdio: 'ignore' }).status === 0;
const WAIT = 90000;

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'start-secrets-'));
  dirs.push(d);
  return d;
};
let other: RunningService;
beforeAll(async () => {
  // The service --url names: another one than npm start's own.
  other = await startService({ port: 0, dataDir: tmp(), log: () => undefined });
});
afterAll(async () => {
  await other.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Started {
  proc: ChildProcessWithoutNullStreams;
  out: () => string;
  /** The first match of `re`; a start that ends first fails at once, with what it said. */
  shows: (re: RegExp) => Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

function run(cmd: string, args: string[], env: Record<string, string> = {}): Started {
  const e: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!('PDA_PASSWORD' in env)) delete e.PDA_PASSWORD;
  const proc = spawn(cmd, args, { stdio: 'pipe', env: e });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const w = watchOutput(proc, WAIT);
  const out = (): string => w.out().replace(/\r\n/g, '\n');
  const shows = (re: RegExp): Promise<RegExpMatchArray> =>
    Promise.race([
      w.waitFor(re),
      exited.then((code): never => {
        throw new Error(`npm start ended (exit ${code}) before showing ${String(re)}:\n${out().slice(-3000)}`);
      }),
    ]);
  return { proc, out, shows, exited };
}

const startArgs = (data: string, extra: string[]): string[] => ['--import', loader, 'host/start.ts', '--port', '0', '--data', data, '--interval-ms', '1000', ...extra];
const start = (data: string, extra: string[] = [], env: Record<string, string> = {}): Started => run(process.execPath, startArgs(data, extra), env);
/** npm start in a terminal of its own (test/e2e/pty-run.py): stdin is a TTY. */
const startInTerminal = (data: string, extra: string[]): Started => run('python3', [PTY, process.execPath, ...startArgs(data, extra)]);

const mode = (p: string): number => statSync(p).mode & 0o777;
const keyOf = async (base: string, email: string, password: string): Promise<{ status: number; key?: string }> => {
  const r = await fetch(`${base}/api/generateapikey/${encodeURIComponent(email)}/${encodeURIComponent(password)}`);
  const body = await r.text();
  return { status: r.status, key: r.ok ? (JSON.parse(body) as { APIKey: string }).APIKey : undefined };
};
const savedKey = (data: string): string => (JSON.parse(readFileSync(join(data, 'sim', 'files', 'config.json'), 'utf8')) as { service: { apiKey: string } }).service.apiKey;

async function stop(s: Started, how: () => void): Promise<void> {
  how();
  expect(await s.exited).toBe(0);
}

describe('npm start and the account password', () => {
  it('refuses --password in one line that says how to give it and does not repeat it', async () => {
    const s = start(tmp(), ['--url', other.url, '--email', 'me@example.com', '--password', 'hunter2-on-argv']);
    expect(await s.exited).toBe(1);
    expect(s.out()).toBe(`npm start: ${PASSWORD_OPTION_REFUSED}\n`);
  }, WAIT);

  it('with --url and neither PDA_PASSWORD nor a terminal: one line saying how to give it, before anything is built', async () => {
    const s = start(tmp(), ['--url', other.url, '--email', 'me@example.com']);
    expect(await s.exited).toBe(1);
    expect(s.out()).toBe('npm start: --url: the password of me@example.com is needed to provision: set PDA_PASSWORD in the environment, or run in a terminal to be asked\n');
  }, WAIT);

  it("the local service's simulated account has a random password of its data directory, in a 0600 file; the board's config is 0600 in 0700 directories", async () => {
    const data = tmp();
    const s = start(data);
    const [, url] = await s.shows(/Device Data Service \(local\) at (http:\/\/127\.0\.0\.1:\d+)\/api\//);
    await s.shows(/delivered {2}sim_json .*HTTP 200/);
    const file = join(data, 'sim-account.json');
    const account = JSON.parse(readFileSync(file, 'utf8')) as { email: string; password: string };
    expect(account.email).toBe('sim@example.com');
    expect(account.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(s.out()).toContain(`simulated account sim@example.com: its password, random, is in ${file} (yours alone to read)`);
    expect(s.out()).not.toContain(account.password);
    expect(mode(file)).toBe(0o600);
    // The fixed credentials of earlier versions open nothing; the file's give the board's key.
    expect((await keyOf(url!, 'sim@example.com', 'sim-password-1')).status).toBe(401);
    expect(await keyOf(url!, account.email, account.password)).toEqual({ status: 200, key: savedKey(data) });
    expect(mode(join(data, 'sim', 'files', 'config.json'))).toBe(0o600);
    expect(mode(join(data, 'sim', 'files'))).toBe(0o700);
    expect(mode(join(data, 'sim'))).toBe(0o700);
    await stop(s, () => s.proc.kill('SIGINT'));
  }, 2 * WAIT);

  it('with --url takes the password from PDA_PASSWORD, and provisions and delivers there', async () => {
    const data = tmp();
    const s = start(data, ['--url', other.url, '--email', 'env@example.com'], { PDA_PASSWORD: 'env-given-pass-0417' });
    await s.shows(/provisioned XML device sim_xml/);
    await s.shows(/delivered {2}sim_value .*HTTP 200/);
    expect(await keyOf(other.url, 'env@example.com', 'env-given-pass-0417')).toEqual({ status: 200, key: savedKey(data) });
    expect(s.out()).not.toContain('env-given-pass-0417');
    await stop(s, () => s.proc.kill('SIGINT'));
  }, 2 * WAIT);

  it.skipIf(!hasPty)('with --url in a terminal asks for the password and echoes none of it', async () => {
    const data = tmp();
    const s = startInTerminal(data, ['--url', other.url, '--email', 'typed@example.com']);
    await s.shows(/password of typed@example\.com \(not shown\): $/);
    s.proc.stdin.write('typed-pass-');
    s.proc.stdin.write('98765\r');
    await s.shows(/provisioned XML device sim_xml/);
    await s.shows(/delivered {2}sim_json .*HTTP 200/);
    expect(s.out()).not.toContain('typed-pass');
    expect(s.out()).not.toContain('98765');
    expect(await keyOf(other.url, 'typed@example.com', 'typed-pass-98765')).toEqual({ status: 200, key: savedKey(data) });
    // The console's Ctrl-C in raw mode.
    await stop(s, () => s.proc.stdin.write('\u0003'));
  }, 2 * WAIT);

  it.skipIf(!hasPty)('a Ctrl-C at the prompt stops npm start as a Ctrl-C anywhere does', async () => {
    const s = startInTerminal(tmp(), ['--url', other.url, '--email', 'typed@example.com']);
    await s.shows(/password of typed@example\.com \(not shown\): $/);
    await stop(s, () => s.proc.stdin.write('abc\u0003'));
    expect(s.out()).toMatch(/Ctrl-C \(SIGINT\): stopping the agent\nagent stopped\n$/);
  }, WAIT);
});

if (!hasPty) console.log('start-secrets: no python3 with pty; the terminal prompt tests are skipped');
