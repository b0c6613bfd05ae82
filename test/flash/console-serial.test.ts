// The serial console: its pure parts (argument parsing, board choice, the
// exit key), then the console itself against the device's own firmware:
// Kaluma 1.2.1 built for the PC (KALUMA_ENGINE) running the agent, its REPL
// on a pseudo-terminal made by socat (engine-board.ts). Without an engine or
// socat, one line says so and those tests are skipped.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  EXIT_KEY, listLinuxTtyPorts, parseConsoleArgs, pickBoardPort, splitAtExitKey, USAGE,
} from '../../host/console-serial';
import { VERSION } from '../../src/version';
import { buildAgent, EngineBoard, engineBoardSupport } from './engine-board';

describe('parseConsoleArgs', () => {
  it('defaults to 115200 baud and no port', () => {
    expect(parseConsoleArgs([])).toEqual({ port: undefined, baudRate: 115200, help: false });
  });

  it('reads --port and --baud in both spellings', () => {
    expect(parseConsoleArgs(['--port', '/dev/ttyACM1', '--baud=9600'])).toEqual({
      port: '/dev/ttyACM1', baudRate: 9600, help: false,
    });
    expect(parseConsoleArgs(['--port=/dev/cu.usbmodem1101'])).toEqual({
      port: '/dev/cu.usbmodem1101', baudRate: 115200, help: false,
    });
  });

  it('rejects unknown arguments, missing values and bad rates', () => {
    expect(() => parseConsoleArgs(['--verbose'])).toThrow("unknown argument '--verbose'");
    expect(() => parseConsoleArgs(['--port'])).toThrow('--port needs a value');
    expect(() => parseConsoleArgs(['--port='])).toThrow('--port needs a value');
    expect(() => parseConsoleArgs(['--baud', '9600.5'])).toThrow("--baud must be a positive integer, got '9600.5'");
    expect(() => parseConsoleArgs(['--baud', '0'])).toThrow("--baud must be a positive integer, got '0'");
  });
});

describe('pickBoardPort', () => {
  it('picks the only board by vendor id, in any letter case', () => {
    expect(pickBoardPort([
      { path: '/dev/ttyUSB0', vendorId: '1a86' },
      { path: '/dev/cu.usbmodem1101', vendorId: '2E8A' },
      { path: '/dev/ttyS0' },
    ])).toEqual({ path: '/dev/cu.usbmodem1101' });
  });

  it('explains when there is no board', () => {
    expect(pickBoardPort([{ path: '/dev/ttyUSB0', vendorId: '1a86' }])).toEqual({
      error: 'no board found: plug the board in with a USB data cable (not in BOOTSEL mode), or pass --port',
    });
  });

  it('lists several boards', () => {
    expect(pickBoardPort([
      { path: '/dev/ttyACM0', vendorId: '2e8a' },
      { path: '/dev/ttyACM1', vendorId: '2e8a' },
    ])).toEqual({ error: 'several boards found (/dev/ttyACM0 /dev/ttyACM1): choose one with --port' });
  });
});

describe('listLinuxTtyPorts', () => {
  it('reads the vendor id of the USB device behind each ttyACM through the device link', () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'console-sys-')));
    try {
      const add = (name: string, usb: string, vendor: string | undefined): void => {
        const usbDev = join(root, 'sys/devices/usb1', usb);
        const tty = join(usbDev, `${usb}:1.0/tty`, name);
        mkdirSync(tty, { recursive: true });
        if (vendor !== undefined) writeFileSync(join(usbDev, 'idVendor'), `${vendor}\n`);
        symlinkSync('../..', join(tty, 'device'));
        mkdirSync(join(root, 'sys/class/tty'), { recursive: true });
        symlinkSync(tty, join(root, 'sys/class/tty', name));
      };
      add('ttyACM1', '1-2', '1a86');
      add('ttyACM0', '1-1', '2e8a');
      add('ttyACM2', '1-3', undefined);
      mkdirSync(join(root, 'sys/class/tty/ttyS0'));
      expect(listLinuxTtyPorts(root)).toEqual([
        { path: join(root, 'dev/ttyACM0'), vendorId: '2e8a' },
        { path: join(root, 'dev/ttyACM1'), vendorId: '1a86' },
        { path: join(root, 'dev/ttyACM2'), vendorId: undefined },
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('returns nothing without a sysfs tty class', () => {
    const root = mkdtempSync(join(tmpdir(), 'console-sys-'));
    try {
      expect(listLinuxTtyPorts(root)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('splitAtExitKey', () => {
  it('forwards everything, Ctrl+C included, when the exit key is absent', () => {
    const chunk = Uint8Array.from([0x2e, 0x68, 0x69, 0x0d, 0x03]);
    expect(splitAtExitKey(chunk)).toEqual({ forward: chunk, exit: false });
  });

  it('forwards only what precedes the exit key and asks to leave', () => {
    const r = splitAtExitKey(Uint8Array.from([0x61, 0x62, EXIT_KEY, 0x63]));
    expect(Array.from(r.forward)).toEqual([0x61, 0x62]);
    expect(r.exit).toBe(true);
  });

  it('uses Ctrl+] as the exit key', () => {
    expect(EXIT_KEY).toBe(']'.charCodeAt(0) - 0x40);
  });
});

describe('console-serial command line', () => {
  const script = fileURLToPath(new URL('../../host/console-serial.ts', import.meta.url));
  const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

  it('prints usage with --help and opens nothing', () => {
    const r = spawnSync(tsx, [script, '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${USAGE}\n`);
  });

  it('exits 2 with the usage on a bad argument', () => {
    const r = spawnSync(tsx, [script, '--bogus'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`console: error: unknown argument '--bogus'\n${USAGE}\n`);
  });
});

const support = engineBoardSupport();
const noEngine = typeof support === 'string' ? support : '';
if (noEngine) console.log(`test/flash/console-serial.test.ts: the console against the device runtime skipped: ${noEngine}`);

describe.skipIf(!!noEngine)('console-serial against the REPL of the device runtime on a pseudo-terminal', () => {
  const script = fileURLToPath(new URL('../../host/console-serial.ts', import.meta.url));
  const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
  // Budgets, generous for the engine under qemu-i386; never a measure.
  const WAIT_MS = 30000;
  let dir: string;
  let program: string;
  let board: EngineBoard | undefined;
  let console_: ChildProcessWithoutNullStreams | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'console-engine-'));
    program = readFileSync((await buildAgent(dir)).file, 'latin1');
  }, 120000);

  afterEach(async () => {
    if (console_ && console_.exitCode === null && console_.signalCode === null) console_.kill('SIGKILL');
    console_ = undefined;
    if (board) await board.stop();
    board = undefined;
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** The console on the board's port, stdin a pipe (what is written is typed). */
  function open(): { out: () => string; err: () => string; exited: Promise<number | null> } {
    const c = spawn(tsx, [script, '--port', board!.port], { stdio: ['pipe', 'pipe', 'pipe'] });
    console_ = c;
    let out = '';
    let err = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString('latin1')));
    c.stderr.on('data', (d: Buffer) => (err += d.toString('latin1')));
    const exited = new Promise<number | null>((resolve) => c.on('close', (code) => resolve(code)));
    return { out: () => out, err: () => err, exited };
  }

  async function until(test: () => boolean, what: string, context: () => string): Promise<void> {
    const end = Date.now() + WAIT_MS;
    while (!test() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(test(), `${what}; so far:\n${context()}`).toBe(true);
  }

  async function exitWithin(exited: Promise<number | null>): Promise<number | null | 'still running'> {
    let t: NodeJS.Timeout | undefined;
    const late = new Promise<'still running'>((resolve) => (t = setTimeout(() => resolve('still running'), WAIT_MS)));
    const r = await Promise.race([exited, late]);
    clearTimeout(t);
    return r;
  }

  it('relays typing to the agent\'s console and its answers back; Ctrl+] leaves with status 0', async () => {
    board = new EngineBoard(support as Exclude<typeof support, string>);
    board.store(program);
    await board.start();
    const c = open();
    await until(() => c.err().includes(`console: connected to ${board!.port} at 115200 baud; Ctrl+] exits`), 'the console connects', c.err);
    console_!.stdin.write('status()\r');
    await until(() => c.out().includes(`agent     ${VERSION}, console-only, boot 1,`), 'status() answers', () => c.out() + c.err());
    console_!.stdin.write(Buffer.from([EXIT_KEY]));
    expect(await exitWithin(c.exited)).toBe(0);
    expect(board.events).toEqual(['power up']);
  }, 4 * 30000);

  it('says the port closed, and ends with status 1, when the board resets under it', async () => {
    board = new EngineBoard(support as Exclude<typeof support, string>);
    board.store(program);
    await board.start();
    const c = open();
    await until(() => c.err().includes('console: connected to'), 'the console connects', c.err);
    // maintenance() reboots the board: its USB serial port goes away.
    console_!.stdin.write('maintenance()\r');
    expect(await exitWithin(c.exited), c.out() + c.err()).toBe(1);
    // The command's own answer may or may not get out before the reset takes the port: not asserted.
    expect(c.err()).toContain('console: the port closed (board unplugged or reset?): run the console again\n');
    expect(board.events.slice(0, 2)).toEqual(['power up', 'reset: watchdog']);
  }, 4 * 30000);
});
