// Ctrl-C in `npm start` as a person presses it: `npm start` runs in a
// terminal (a pseudo-terminal: test/e2e/pty-run.py), the console is waiting
// for a command, and one Ctrl-C is typed. One press stops the agent and the
// local service, says so, and leaves nothing running: the terminal closes,
// the port is free, and no delivery is printed after `stopped`. A SIGINT to
// the whole process group (what the terminal sends outside raw mode, or
// `kill -INT -<pgid>`) does the same.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { watchOutput } from '../fakes/child';

const PTY = fileURLToPath(new URL('./pty-run.py', import.meta.url));
const hasPty = spawnSync('python3', ['-c', 'import pty, termios, fcntl'], { stdio: 'ignore' }).status === 0;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Started {
  data: string;
  proc: ChildProcessWithoutNullStreams;
  /** What the terminal showed so far: CR LF as LF, without npm's spinner (a braille frame, then cursor moves). */
  shown: () => string;
  waitFor: (re: RegExp, ms?: number) => Promise<RegExpMatchArray>;
  /** The exit code of pty-run.py: npm's, once nothing holds the terminal any more. */
  exited: Promise<number | null>;
}

/** `npm start` in a terminal of its own, on a fresh data directory. */
function startInTerminal(): Started {
  const data = mkdtempSync(join(tmpdir(), 'ctrl-c-'));
  dirs.push(data);
  const proc = spawn('python3', [PTY, 'npm', 'start', '--', '--port', '0', '--data', data, '--interval-ms', '1000'], { stdio: 'pipe' });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const w = watchOutput(proc, 60000);
  // eslint-disable-next-line no-control-regex -- the terminal's escape sequences are what is removed
  const shown = (): string => w.out().replace(/\r\n/g, '\n').replace(/\x1b\[[0-9;]*[A-Za-z]|[\u2800-\u28ff]/g, '');
  return { data, proc, shown, waitFor: w.waitFor, exited };
}

const portOpen = (port: number): Promise<boolean> =>
  new Promise((r) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), r(true)));
    s.once('error', () => r(false));
  });

/** The first match of `re` in what the terminal shows; a start that ends first fails at once, with what it said. */
function shows(s: Started, re: RegExp): Promise<RegExpMatchArray> {
  const ended = s.exited.then((code): never => {
    throw new Error(`npm start ended (exit ${code}) before showing ${String(re)}:\n${s.shown().slice(-3000)}`);
  });
  return Promise.race([s.waitFor(re), ended]);
}

/** Up, delivering, and the console answering a command typed at the terminal. */
async function running(s: Started): Promise<number> {
  const [, port] = await shows(s, /Device Data Service \(local\) at http:\/\/127\.0\.0\.1:(\d+)\/api\//);
  await shows(s, /console: type help\(\)/);
  await shows(s, /delivered {2}sim_json .*HTTP 200/);
  s.proc.stdin.write('status()\r');
  await shows(s, /outbox {4}\d+ queued/);
  return Number(port);
}

/** Budget for the stop: the agent, the service and npm gone. A stop that hangs fails here, with what was shown. */
async function stopsWithin(s: Started, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ms)));
  const code = await Promise.race([s.exited, late]);
  clearTimeout(timer);
  if (code === 'late') {
    // Nothing left behind: the command's whole process group, then the terminal.
    const pid = /^pid (\d+)$/m.exec(s.shown());
    if (pid) process.kill(-Number(pid[1]), 'SIGKILL');
    s.proc.kill('SIGKILL');
    throw new Error(`npm start still running ${ms} ms after one Ctrl-C; the terminal shows:\n${s.shown().slice(-3000)}`);
  }
  return code;
}

describe.skipIf(!hasPty)('Ctrl-C in npm start, in a terminal', () => {
  it('one Ctrl-C typed at the console stops the agent and the service, says so, and exits 0', async () => {
    const s = startInTerminal();
    const port = await running(s);
    const before = s.shown().length;
    s.proc.stdin.write('\x03');
    expect(await stopsWithin(s, 20000)).toBe(0);
    const after = s.shown().slice(before);
    expect(after).toMatch(/Ctrl-C: stopping the agent and the local service\n/);
    expect(after).toMatch(/\nagent and local service stopped\n$/);
    // Nothing was delivered once the stop was said.
    expect(after.slice(after.indexOf('Ctrl-C: stopping'))).not.toMatch(/delivered/);
    expect(await portOpen(port)).toBe(false);
    // The boot's end is on flash as asked for: the next start's health report names it, not a crash.
    const state = JSON.parse(readFileSync(join(s.data, 'sim', 'files', 'state.json'), 'utf8')) as Record<string, unknown>;
    expect(state).toMatchObject({ boot: 1, asked: true, state: 'stop: Ctrl-C in npm start' });
  }, 120000);

  it('a SIGINT to the whole process group (the terminal outside raw mode) stops it the same way', async () => {
    const s = startInTerminal();
    const [, pid] = await s.waitFor(/^pid (\d+)$/m);
    const port = await running(s);
    const before = s.shown().length;
    process.kill(-Number(pid), 'SIGINT');
    // npm's exit code is its script shell's: a shell that got the SIGINT too
    // ends by it (130) once the agent has exited 0 (dash, Debian's sh), or
    // passes the 0 on (bash).
    expect([0, 130]).toContain(await stopsWithin(s, 20000));
    const after = s.shown().slice(before);
    expect(after).toMatch(/^Ctrl-C \(SIGINT\): stopping the agent and the local service$/m);
    expect(after.match(/stopping the agent/g)).toHaveLength(1);
    expect(after).not.toMatch(/npm start:/);
    expect(after).toMatch(/\nagent and local service stopped\n$/);
    expect(await portOpen(port)).toBe(false);
  }, 120000);
});
