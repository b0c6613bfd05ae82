// flash.sh end to end against a scripted board on a pseudo-terminal
// (fake-board.ts over pty-relay.py): the real scripts/flash/board.ts talks to
// a model of Kaluma 1.2.1's REPL, `.flash -w` and YMODEM receiver, LittleFS
// and the agent's boot, maintenance() and watchdog. Only the build is fake.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync, copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeBoard } from './fake-board';
import type { BoardSetup } from './fake-board';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const hasPython = spawnSync('python3', ['-c', 'import pty, tty'], { stdio: 'ignore' }).status === 0;
const hasStty = spawnSync('sh', ['-c', 'command -v stty'], { stdio: 'ignore' }).status === 0;
const why = !hasPython ? 'python3 (with its pty module) is missing' : !hasStty ? 'stty is missing' : '';
if (why) console.log(`test/flash/serial.test.ts: skipped: ${why}; the scripted board needs a pseudo-terminal`);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

let tmp: string;
let root: string;
let port: string;
let board: FakeBoard | undefined;

/** The program the fake build writes: ASCII with line feeds and every printable byte, like a real bundle. */
function bundleText(bytes: number): string {
  let s = '/*fake agent*/\n';
  let i = 0;
  while (s.length < bytes) {
    s += `var v${i}=${JSON.stringify(String.fromCharCode(32 + (i % 95)).replace(/["\\]/g, '_'))};\n`;
    i++;
  }
  return s.slice(0, bytes);
}

function write(path: string, text: string | Buffer, mode?: number): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  if (mode !== undefined) chmodSync(path, mode);
}

async function plug(setup: Omit<BoardSetup, 'link'>): Promise<FakeBoard> {
  board = new FakeBoard({ link: port, ymodemMs: 100, answerMs: 50, eraseMs: 20, unplugMs: 150, ...setup });
  await board.started();
  return board;
}

function flash(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const t0 = Date.now();
  const child = spawn('bash', [join(root, 'flash.sh'), '--port', port, ...args], {
    cwd: tmp,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: tmp,
      FLASH_BUILD_CMD: join(tmp, 'bin/build'),
      FLASH_OS: 'Linux',
      FAKE_BUNDLE: join(tmp, 'bundle.js'),
      FLASH_ANSWER_TIMEOUT: '5',
      FLASH_REBOOT_TIMEOUT: '5',
      FLASH_STEP_TIMEOUT: '3',
      FLASH_ERASE_TIMEOUT: '3',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    child.on('close', (status) => resolve({ status, stdout, stderr, ms: Date.now() - t0 }));
  });
}

const lastLine = (s: string): string => s.trimEnd().split('\n').pop() ?? '';

/** What the first boot after a new config says: the agent checks the file after its boot, then restarts into the agent. */
const CHECKING = 'mode console-only (checking the saved configuration; the agent starts after a restart)';

/** Waits (a budget, not a measure) until the board is in `mode` again after the restart the config check makes. */
async function until(b: FakeBoard, mode: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (b.mode !== mode && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  expect(b.mode).toBe(mode);
}
const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString());

/** No half-written config: /config.json is exactly the old or the new file, and no temporary is left. */
function expectWholeConfig(b: FakeBoard, allowed: (string | undefined)[]): void {
  expect(b.files.has('/config.json.tmp')).toBe(false);
  expect(allowed).toContain(text(b.files.get('/config.json')));
}

const CONFIG = '{"wifi":{"ssid":"field-net","password":"correct horse"},"service":{"url":"http://192.168.1.10:8080"},"note":"caf\u00e9 \u00b0C"}\n';
const OLD_CONFIG = '{"wifi":{"ssid":"old-net"}}\n';

beforeEach(() => {
  tmp = realpathSync(mkdtempSync(join(tmpdir(), 'flash-serial-')));
  root = join(tmp, 'project');
  port = join(tmp, 'dev/ttyACM0');
  mkdirSync(join(tmp, 'dev'), { recursive: true });
  mkdirSync(root, { recursive: true });
  copyFileSync(join(REPO, 'flash.sh'), join(root, 'flash.sh'));
  // The real serial step, run by the real tsx.
  mkdirSync(join(root, 'scripts'), { recursive: true });
  symlinkSync(join(REPO, 'scripts/flash'), join(root, 'scripts/flash'));
  mkdirSync(join(root, 'node_modules/.bin'), { recursive: true });
  symlinkSync(realpathSync(join(REPO, 'node_modules/.bin/tsx')), join(root, 'node_modules/.bin/tsx'));
  write(join(root, 'boards/pico-w.json'), JSON.stringify({ name: 'pico-w', bundleBudgetBytes: 65536, flash: { programBytes: 524288 } }));
  // Fake build: runs in the project root like the real one.
  write(join(tmp, 'bin/build'), '#!/usr/bin/env bash\nmkdir -p dist\ncp "$FAKE_BUNDLE" dist/agent.js\n', 0o755);
  write(join(tmp, 'bundle.js'), bundleText(10000));
  write(join(tmp, 'site.json'), CONFIG);
});

afterEach(async () => {
  if (board) await board.stop();
  board = undefined;
  rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(!!why)('flash.sh against a scripted board on a pseudo-terminal', () => {
  it('writes config and program to a board already in a maintenance boot, checks both, says the mode', async () => {
    const b = await plug({ start: 'maintenance', agent: 'running', program: 'old program', files: { '/config.json': OLD_CONFIG } });
    const r = await flash(['--config', 'site.json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('flash: board: Kaluma 1.2.1 on pico-w, already in a maintenance boot (agent and watchdog off)\n');
    expect(r.stdout).toMatch(/flash: config: \/config\.json written and read back: \d+ bytes, checksum \d+\n/);
    expect(r.stdout).toContain('flash: program: the board said "Done" and stores 10000 bytes, the size of dist/agent.js\n');
    expect(lastLine(r.stdout)).toBe(`flash: done: agent 0.1.0 on pico-w, boot 2, ${CHECKING}`);
    expect(b.program()).toBe(bundleText(10000));
    expect(text(b.files.get('/config.json'))).toBe(CONFIG);
    expectWholeConfig(b, [CONFIG]);
    // The only reset is the one the check makes into the agent, after flash.sh.
    await until(b, 'running');
    expect(b.events.filter((e) => e.startsWith('reset'))).toEqual(['reset: restart after the config check']);
    expect(b.violations).toEqual([]);
    expect(r.ms).toBeLessThan(10000);
  });

  it('sends a running agent to maintenance, reopens the re-enumerated port, then transfers', async () => {
    const b = await plug({ start: 'booted', agent: 'running', program: 'old program', chatterMs: 100, files: { '/config.json': OLD_CONFIG } });
    expect(b.watchdog).toBe(true);
    const r = await flash(['--config', 'site.json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('flash: board: Kaluma 1.2.1 on pico-w, agent loaded (running, boot 1): sending maintenance() to reboot without agent and watchdog\n');
    expect(r.stdout).toContain('flash: board: maintenance boot reached (agent and watchdog off)\n');
    expect(lastLine(r.stdout)).toBe(`flash: done: agent 0.1.0 on pico-w, boot 3, ${CHECKING}`);
    // Reset into maintenance before any write; nothing written under the watchdog.
    await until(b, 'running');
    const order = b.events.filter((e) => /^reset|^boot|^ymodem: (start|Done)/.test(e));
    expect(order).toEqual([
      'boot (reset): running', 'reset: maintenance()', 'boot (reset): console-only', 'ymodem: start', 'ymodem: Done', 'boot (load): console-only',
      'reset: restart after the config check', 'boot (reset): running',
    ]);
    expect(b.violations).toEqual([]);
    expect(b.program()).toBe(bundleText(10000));
    expectWholeConfig(b, [CONFIG]);
  });

  it('asks the board when the maintenance boot lines were printed before the port came back', async () => {
    const b = await plug({ start: 'booted', agent: 'running', program: 'old program', lostBootLines: true });
    const r = await flash([]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(lastLine(r.stdout)).toBe('flash: done: agent 0.1.0 on pico-w, boot 3, mode running');
    expect(b.violations).toEqual([]);
  });

  it('waits for a board busy for 3 s before it reads, and the config lands whole', async () => {
    const b = await plug({ start: 'booted', agent: 'running', program: 'old program', busyMs: 3000, files: { '/config.json': OLD_CONFIG } });
    const r = await flash(['--config', 'site.json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.ms).toBeGreaterThan(3000);
    expect(r.ms).toBeLessThan(10000);
    expect(lastLine(r.stdout)).toBe(`flash: done: agent 0.1.0 on pico-w, boot 3, ${CHECKING}`);
    expect(text(b.files.get('/config.json'))).toBe(CONFIG);
    expectWholeConfig(b, [CONFIG]);
    expect(b.violations).toEqual([]);
  });

  it('a run after one that gave up on a busy board stores the config, never the command text', async () => {
    const b = await plug({ start: 'booted', agent: 'running', program: 'old program', busyMs: 2500, files: { '/config.json': OLD_CONFIG } });
    const first = await flash(['--config', 'site.json'], { FLASH_ANSWER_TIMEOUT: '1' });
    expect(first.status).toBe(1);
    expect(first.stderr).toBe(`flash: error: the board did not answer on ${port} within 1s: press reset (or boot with GP22 tied to GND if the program hangs at start) and retry\n`);
    expectWholeConfig(b, [OLD_CONFIG]);
    const second = await flash(['--config', 'site.json']);
    expect(second.stderr).toBe('');
    expect(second.status).toBe(0);
    expect(text(b.files.get('/config.json'))).toBe(CONFIG);
    expectWholeConfig(b, [CONFIG]);
    expect(b.program()).toBe(bundleText(10000));
    expect(b.violations).toEqual([]);
  });

  it('gives up on a board that never answers, with one line and status 1, touching nothing', async () => {
    const b = await plug({ start: 'booted', agent: 'running', program: 'old program', silent: true, files: { '/config.json': OLD_CONFIG } });
    const r = await flash(['--config', 'site.json'], { FLASH_ANSWER_TIMEOUT: '1' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`flash: error: the board did not answer on ${port} within 1s: press reset (or boot with GP22 tied to GND if the program hangs at start) and retry\n`);
    expect(r.stdout).not.toContain('flash: done');
    expect(b.program()).toBe('old program');
    expectWholeConfig(b, [OLD_CONFIG]);
  });

  it('reports the firmware\'s "Aborted" after 5,120 bytes and leaves no half program', async () => {
    const b = await plug({ start: 'maintenance', agent: 'running', program: 'old program', abortAfterPackets: 5 });
    const r = await flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('flash: error: the board cancelled the upload after 5120 of 10000 bytes (it said "Aborted"); its program area was erased: run ./flash.sh again\n');
    expect(r.stdout).not.toContain('flash: done');
    expect(b.program()).toBe('');
    // The rest of the cut packet reaches the REPL as typing, as on the board;
    // nothing else went wrong.
    expect(b.violations.filter((v) => !/^not es2019|^REPL buffer overflow/.test(v))).toEqual([]);
  });

  it('reports "Verification failed" when the program area fills up, whatever the byte count sent', async () => {
    const b = await plug({ start: 'maintenance', agent: 'running', program: 'old program', programBytes: 8192 });
    const r = await flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('flash: error: the board cancelled the upload after 7168 of 10000 bytes (it said "Verification failed": the program area is full or its flash failed); its program area was erased: run ./flash.sh again\n');
    expect(b.program()).toBe('');
    expect(b.violations).toEqual([]);
  });

  it('fails when the firmware says "Done" but .flash -s disagrees with the file size', async () => {
    const b = await plug({ start: 'maintenance', agent: 'running', program: 'old program', badPageAt: 4096 });
    const r = await flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('flash: error: the board stored a program of the wrong size (.flash -s says 4096, dist/agent.js has 10000 bytes); its program area was erased: run ./flash.sh again\n');
    expect(b.events).toContain('ymodem: Done');
    expect(b.program()).toBe('');
  });

  it('removes a config that reads back different and leaves /config.json as it was', async () => {
    const b = await plug({ start: 'maintenance', agent: 'running', program: 'old program', corruptWrites: true, files: { '/config.json': OLD_CONFIG } });
    const r = await flash(['--config', 'site.json']);
    expect(r.status).toBe(1);
    const size = Buffer.byteLength(CONFIG);
    expect(r.stderr).toMatch(new RegExp(
      `^flash: error: /config\\.json\\.tmp came back different from the file \\(board: ${size} bytes, checksum \\d+; sent: ${size} bytes, checksum \\d+\\), ` +
        'so it was removed; /config\\.json on the board is unchanged: run \\./flash\\.sh again\\n$',
    ));
    expectWholeConfig(b, [OLD_CONFIG]);
    expect(b.program()).toBe('old program');
    expect(b.events).not.toContain('ymodem: start');
  });

  it('says so when the program dies on its first line instead of claiming it runs', async () => {
    await plug({ start: 'maintenance', agent: 'crash', program: 'old program' });
    const r = await flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('flash: error: the program was written but did not start (it said: ReferenceError: agentMain is not defined): fix it and run ./flash.sh again\n');
    expect(r.stdout).not.toContain('flash: done');
  });

  it('fails on a start in safe mode, naming the mode and the way out', async () => {
    await plug({ start: 'maintenance', agent: 'safe', program: 'old program' });
    const r = await flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('flash: error: the program was written and verified, but agent 0.1.0 on pico-w, boot 2, mode safe ' +
      '(5 rapid reboots in a row (last state: uplink: sending)): open the console (npm run console) and type resume()\n');
  });

  it('is done on a console-only start and says why the agent waits', async () => {
    await plug({ start: 'maintenance', agent: 'console-only', program: 'old program' });
    const r = await flash([]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(lastLine(r.stdout)).toBe('flash: done: agent 0.1.0 on pico-w, boot 2, mode console-only (not configured: set wifi.ssid, service.url, service.apiKey, device.<name>)');
  });

  it('reads the boot line of a board without a unique id (the device runtime on a PC prints "on pico-w , boot N")', async () => {
    await plug({ start: 'maintenance', agent: 'running', program: 'old program', uid: '' });
    const r = await flash([]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(lastLine(r.stdout)).toBe('flash: done: agent 0.1.0 on pico-w, boot 2, mode running');
  });

  it('waits for the REPL after the boot line of an agent that blocks at once (a Wi-Fi join), up to the first answer\'s timeout', async () => {
    const b = await plug({ start: 'maintenance', agent: 'running', program: 'old program', busyAfterBootMs: 2000 });
    const r = await flash([], { FLASH_STEP_TIMEOUT: '1.5' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(lastLine(r.stdout)).toBe('flash: done: agent 0.1.0 on pico-w, boot 2, mode running');
    expect(b.violations).toEqual([]);
  });

  it('says the boot line came but the board did not answer after it, when the block outlasts that timeout', async () => {
    await plug({ start: 'maintenance', agent: 'running', program: 'old program', busyAfterBootMs: 4000 });
    const r = await flash([], { FLASH_ANSWER_TIMEOUT: '2' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('flash: error: the agent printed its boot line but the board did not answer within 2s after it: open the console (npm run console) to see where it stops\n');
  });

  it('turns the REPL echo back on when an interrupted transfer left it off', async () => {
    const b = await plug({ start: 'maintenance', agent: 'running', program: 'old program', echo: false });
    const r = await flash([]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(lastLine(r.stdout)).toBe('flash: done: agent 0.1.0 on pico-w, boot 2, mode running');
    expect(b.events).toContain('command: .echo on');
  });

  it('writes a bare board (no program yet) without a maintenance step', async () => {
    const b = await plug({ agent: 'console-only' });
    const r = await flash(['--config', 'site.json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('flash: board: Kaluma 1.2.1 on pico-w, no agent loaded\n');
    expect(lastLine(r.stdout)).toMatch(/^flash: done: agent 0\.1\.0 on pico-w, boot 1, mode console-only /);
    expectWholeConfig(b, [CONFIG]);
  });

  it('refuses a board of the other kind before sending anything', async () => {
    const b = await plug({ name: 'pico2-w', start: 'maintenance', agent: 'running', program: 'old program' });
    const r = await flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('flash: error: the board says it is pico2-w, not pico-w: run ./flash.sh --board pico2-w (nothing was sent)\n');
    expect(b.program()).toBe('old program');
  });

  it('stops at once when the agent cannot reboot into maintenance, sending nothing', async () => {
    const b = await plug({ start: 'booted', agent: 'running', program: 'old program', coldBroken: true, files: { '/config.json': OLD_CONFIG } });
    const r = await flash(['--config', 'site.json'], { FLASH_REBOOT_TIMEOUT: '8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('flash: error: the agent did not reboot into maintenance (it said: cold module state: checksum mismatch); nothing was sent: ' +
      'press reset, or boot with GP22 tied to GND, then run ./flash.sh again\n');
    expect(r.ms).toBeLessThan(5000);
    expect(b.program()).toBe('old program');
    expectWholeConfig(b, [OLD_CONFIG]);
    expect(b.violations).toEqual([]);
  });

  it('the scripted board enforces the watchdog: without a maintenance step it resets mid-upload', async () => {
    // An agent too old to know maintenance(): flash.sh cannot stop it, and the
    // board resets as the real one does. This is what the maintenance step prevents.
    const b = await plug({ start: 'booted', agent: 'running', program: 'old program', noMaintenance: true });
    const r = await flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('flash: error: the board went away in the middle (reset or unplugged): replug it and run ./flash.sh again\n');
    expect(b.violations).toEqual(['.flash -w while the agent and its watchdog run']);
    expect(b.events).toContain('reset: watchdog during .flash -w');
  });
});

describe.skipIf(!hasStty)('flash.sh serial step without a board', () => {
  it('names a --port that is not a serial device', async () => {
    const file = join(tmp, 'not-a-tty');
    write(file, '');
    port = file;
    const r = await flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`flash: error: ${file} is not a serial port: pass the board's USB serial port (/dev/ttyACM* or /dev/cu.usbmodem*) to --port\n`);
  });

  it('rejects a timeout that is not a number', async () => {
    const file = join(tmp, 'not-a-tty');
    write(file, '');
    port = file;
    const r = await flash([], { FLASH_STEP_TIMEOUT: 'soon' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("flash: error: FLASH_STEP_TIMEOUT must be a positive number of seconds, got 'soon'\n");
  });
});
