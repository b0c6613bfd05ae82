// flash.sh end to end against the device's own firmware: Kaluma 1.2.1 built
// for the PC (KALUMA_ENGINE), its REPL on a pseudo-terminal made by socat
// (test/flash/engine-board.ts), the real bundle built as `npm run build`
// builds it. Three flashes in a row on one board, without and with --config:
// the REPL's own order (the prompt before the agent's boot), the real
// `.flash -w` receiver, the agent's maintenance() reboot and, with a config,
// its check and restart into the agent. Without an engine or socat, one line
// says so and the tests are skipped.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version';
import { buildAgent, EngineBoard, engineBoardSupport } from './engine-board';

const FLASH_SH = fileURLToPath(new URL('../../flash.sh', import.meta.url));
const support = engineBoardSupport();
const why = typeof support === 'string' ? support : '';
if (why) console.log(`test/flash/engine-repl.test.ts: skipped: ${why}`);

// Generous for each step (the engine under qemu-i386 is several times slower
// than native), bounded as a whole: a run is killed after RUN_MS, a test
// (three runs and the waits between them) fails after TEST_MS.
const STEP_S = '30';
const RUN_MS = 90000;
const RESTART_MS = 30000;
const TEST_MS = 3 * RUN_MS + 2 * RESTART_MS + 30000;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

let tmp: string;
let bundle: { file: string; bytes: number };
let board: EngineBoard | undefined;
const children = new Set<ChildProcess>();

/** A complete configuration for the agent; on the engine it has no radio, so it runs without a link. */
const CONFIG = JSON.stringify({
  wifi: { ssid: 'bench-net', password: 'bench-pass-1' },
  service: { url: 'http://10.0.0.5:8080/dds', apiKey: 'k3y0123456789abcdef0123456789abcd' },
  sensors: [{ name: 'temp', kind: 'temperature', intervalMs: 1000 }],
  devices: [{ name: 'tv', deviceId: 1, devicePin: 1111, format: 'Value', sensors: ['temp'] }],
}) + '\n';

/** Runs ./flash.sh on the board's port, without a build (the bundle is built once), killed after RUN_MS. */
function flash(args: string[]): Promise<Run> {
  const child = spawn('bash', [FLASH_SH, '--port', board!.port, ...args], {
    cwd: tmp,
    // Its own process group: on a timeout flash.sh and the serial step go together.
    detached: true,
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: tmp,
      FLASH_BUILD_CMD: 'true',
      FLASH_BUNDLE: bundle.file,
      FLASH_ANSWER_TIMEOUT: STEP_S,
      FLASH_REBOOT_TIMEOUT: STEP_S,
      FLASH_STEP_TIMEOUT: STEP_S,
      FLASH_ERASE_TIMEOUT: STEP_S,
    },
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const kill = setTimeout(() => killGroup(child), RUN_MS);
  return new Promise((resolve) => {
    child.on('close', (status) => {
      clearTimeout(kill);
      children.delete(child);
      resolve({ status, stdout, stderr });
    });
  });
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

const lastLine = (s: string): string => s.trimEnd().split('\n').pop() ?? '';

/** The run went through, and what the board printed is there if it did not. */
function expectDone(r: Run, line: string): void {
  const context = `flash.sh said:\n${r.stdout}${r.stderr}\nboard events: ${board!.events.join('; ')}`;
  expect(r.stderr, context).toBe('');
  expect(r.status, context).toBe(0);
  expect(r.stdout).toContain(`flash: program: the board said "Done" and stores ${bundle.bytes} bytes, the size of ${bundle.file}\n`);
  expect(lastLine(r.stdout), context).toBe(line);
  // What the board stores is the bundle, byte for byte.
  expect(board!.program() === readFileSync(bundle.file, 'latin1')).toBe(true);
}

const done = (boot: number, mode: string): string => `flash: done: agent ${VERSION} on pico-w, boot ${boot}, mode ${mode}`;
const NOT_CONFIGURED = 'console-only (not configured: set wifi.ssid, service.url, service.apiKey, device.<name>)';
const CHECKING = 'console-only (checking the saved configuration; the agent starts after a restart)';
const BOOT_LINE = /pico-data-agent \S+ on pico-w \S*, boot (\d+)\r\n/g;

/** The boots the board printed since `from`, in order. */
const bootsIn = (said: string): number[] => [...said.matchAll(BOOT_LINE)].map((m) => Number(m[1]));

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'flash-engine-'));
  if (!why) bundle = await buildAgent(tmp);
}, 120000);

afterEach(async () => {
  for (const c of children) killGroup(c);
  children.clear();
  if (board) await board.stop();
  board = undefined;
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(!!why)('flash.sh against the REPL of the device runtime on a pseudo-terminal', () => {
  it('three flashes in a row without --config: each ends in "done" with the mode the agent booted in', async () => {
    board = new EngineBoard(support as Exclude<typeof support, string>);
    await board.start();

    const first = await flash([]);
    expectDone(first, done(1, NOT_CONFIGURED));
    expect(first.stdout).toContain('flash: board: Kaluma 1.2.1 on pico-w, no agent loaded\n');

    for (const boot of [3, 5]) {
      const r = await flash([]);
      expect(r.stdout).toContain(`flash: board: Kaluma 1.2.1 on pico-w, agent loaded (console-only, boot ${boot - 2}): sending maintenance() to reboot without agent and watchdog\n`);
      expect(r.stdout).toContain('flash: board: maintenance boot reached (agent and watchdog off)\n');
      expectDone(r, done(boot, NOT_CONFIGURED));
    }
    // Two maintenance reboots, each through the watchdog, and nothing else.
    expect(board.events).toEqual(['power up', 'reset: watchdog', 'power up', 'reset: watchdog', 'power up']);
  }, TEST_MS);

  it('three flashes in a row with --config: the config is read back, the agent checks it, restarts and runs', async () => {
    board = new EngineBoard(support as Exclude<typeof support, string>);
    await board.start();
    const config = join(tmp, 'site.json');
    writeFileSync(config, CONFIG);
    const readBack = `flash: config: /config.json written and read back: ${Buffer.byteLength(CONFIG)} bytes, checksum `;

    let from = board.mark();
    const first = await flash(['--config', config]);
    expectDone(first, done(1, CHECKING));
    expect(first.stdout).toContain(readBack);
    // The check restarts the board into the agent: a new boot that says no
    // "agent: ..." line (it runs).
    const restarted = await board.waitFor((s) => bootsIn(s).includes(2), from, RESTART_MS);
    expect(restarted, `board events: ${board.events.join('; ')}\nboard said: ${board.output(from)}`).toBe(true);

    for (const boot of [4, 6]) {
      from = board.mark();
      const r = await flash(['--config', config]);
      expect(r.stdout).toContain(`flash: board: Kaluma 1.2.1 on pico-w, agent loaded (running, boot ${boot - 2}): sending maintenance() to reboot without agent and watchdog\n`);
      expect(r.stdout).toContain(readBack);
      // The same file again: checked already, so the agent runs at once.
      expectDone(r, done(boot, 'running'));
      expect(bootsIn(board.output(from))).toEqual([boot - 1, boot]);
    }
    expect(board.events).toEqual([
      'power up', 'reset: watchdog', // the check's restart
      'power up', 'reset: watchdog', // maintenance()
      'power up', 'reset: watchdog', // maintenance()
      'power up',
    ]);
  }, TEST_MS);
});
