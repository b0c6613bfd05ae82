// Runs flash.sh in a throw-away copy of the project layout: fake build, a fake
// serial step (node_modules/.bin/tsx) that records its arguments, fake /sys and
// /dev trees. No real serial port and no real build output is touched. The
// serial step itself is tested against a scripted board in serial.test.ts.
import { spawnSync } from 'node:child_process';
import {
  chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync,
  symlinkSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const FLASH_SH = fileURLToPath(new URL('../../flash.sh', import.meta.url));
const BUDGET = 65536;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

let tmp: string;
let root: string;
let sysRoot: string;
let serialLog: string;
let buildLog: string;

function write(path: string, text: string, mode?: number): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  if (mode !== undefined) chmodSync(path, mode);
}

/** A USB serial device as the kernel shows it: class/tty/<name> -> .../<iface>/tty/<name>, device -> <iface>. */
function addTty(name: string, vendor: string, usbPath: string): void {
  const usbDev = join(sysRoot, 'sys/devices/platform/usb1', usbPath);
  const iface = join(usbDev, `${usbPath}:1.0`);
  const ttyDir = join(iface, 'tty', name);
  mkdirSync(ttyDir, { recursive: true });
  write(join(usbDev, 'idVendor'), `${vendor}\n`);
  symlinkSync('../..', join(ttyDir, 'device'));
  mkdirSync(join(sysRoot, 'sys/class/tty'), { recursive: true });
  symlinkSync(ttyDir, join(sysRoot, 'sys/class/tty', name));
  write(join(sysRoot, 'dev', name), '');
}

function addUsbDevice(name: string, vendor: string, product: string): void {
  const dir = join(sysRoot, 'sys/bus/usb/devices', name);
  write(join(dir, 'idVendor'), `${vendor}\n`);
  write(join(dir, 'idProduct'), `${product}\n`);
}

function board(name: string, budget: number): void {
  write(join(root, 'boards', `${name}.json`), JSON.stringify({ name, bundleBudgetBytes: budget }));
}

function flash(args: string[], env: Record<string, string> = {}, wrap?: (cmd: string[]) => string[]): Run {
  const cmd = ['bash', join(root, 'flash.sh'), ...args];
  const [bin, ...rest] = wrap ? wrap(cmd) : cmd;
  const r = spawnSync(bin!, rest, {
    cwd: tmp,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: tmp,
      FLASH_BUILD_CMD: join(tmp, 'bin/build'),
      FLASH_SYS_ROOT: sysRoot,
      FLASH_OS: 'Linux',
      FAKE_SERIAL_LOG: serialLog,
      FAKE_BUILD_LOG: buildLog,
      FAKE_BUNDLE_BYTES: '1000',
      ...env,
    },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The serial step's arguments, one line per run. */
function serialCalls(): string[] {
  return existsSync(serialLog) ? readFileSync(serialLog, 'utf8').split('\n').filter((l) => l !== '') : [];
}

beforeEach(() => {
  tmp = realpathSync(mkdtempSync(join(tmpdir(), 'flash-test-')));
  root = join(tmp, 'project');
  sysRoot = join(tmp, 'fake-root');
  serialLog = join(tmp, 'serial.log');
  buildLog = join(tmp, 'build.log');
  mkdirSync(root, { recursive: true });
  copyFileSync(FLASH_SH, join(root, 'flash.sh'));
  board('pico-w', BUDGET);
  board('pico2-w', 2 * BUDGET);
  mkdirSync(join(sysRoot, 'sys/class/tty'), { recursive: true });
  // Fake build: runs in the project root like the real one, writes FAKE_BUNDLE_BYTES bytes.
  write(join(tmp, 'bin/build'), [
    '#!/usr/bin/env bash',
    'printf "%s\\n" "$*" >> "$FAKE_BUILD_LOG"',
    'mkdir -p dist',
    'head -c "$FAKE_BUNDLE_BYTES" /dev/zero | tr "\\0" "x" > dist/agent.js',
    '',
  ].join('\n'), 0o755);
  // Fake serial step: records its arguments (flash.sh runs it from the project root).
  write(join(root, 'node_modules/.bin/tsx'), [
    '#!/usr/bin/env bash',
    'printf "%s\\n" "$*" >> "$FAKE_SERIAL_LOG"',
    'echo "flash: done: agent 0.1.0 on pico-w, boot 1, mode running"',
    'exit "${FAKE_SERIAL_EXIT:-0}"',
    '',
  ].join('\n'), 0o755);
});

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('flash.sh arguments', () => {
  it('prints usage with --help and exits 0', () => {
    const r = flash(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(
      'Usage: ./flash.sh [--board pico-w|pico2-w] [--port PORT] [--config FILE.json] [--dry-run] [--help]',
    );
    expect(r.stdout).toContain('FLASH_BUILD_CMD');
    expect(existsSync(buildLog)).toBe(false);
  });

  it('rejects an unknown flag', () => {
    const r = flash(['--verbose']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("flash: error: unknown argument '--verbose' (see ./flash.sh --help)\n");
    expect(serialCalls()).toEqual([]);
  });

  it('rejects a flag without its value', () => {
    const r = flash(['--port']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('flash: error: --port needs a value (see ./flash.sh --help)\n');
  });

  it('rejects an unknown board', () => {
    const r = flash(['--board', 'esp32']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      "flash: error: unknown board 'esp32': use --board pico-w or --board pico2-w (see ./flash.sh --help)\n",
    );
  });

  it('fails on a missing --config file', () => {
    const r = flash(['--config', 'nope.json', '--port', join(sysRoot, 'dev/ttyACM0')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      "flash: error: config file 'nope.json' not found: pass an existing JSON file to --config\n",
    );
    expect(serialCalls()).toEqual([]);
  });

  it('fails on a config file that is not JSON', () => {
    write(join(tmp, 'bad.json'), '{"wifi": {"ssid": "x",}}');
    const r = flash(['--config', 'bad.json']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^flash: error: config file '${join(tmp, 'bad.json')}' is not valid JSON \\(.+\\): fix it and retry\\n$`),
    );
    expect(serialCalls()).toEqual([]);
  });

  it('fails on a config file that holds an array', () => {
    write(join(tmp, 'list.json'), '[1, 2]');
    const r = flash(['--config', 'list.json']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `flash: error: config file '${join(tmp, 'list.json')}' must hold a JSON object: fix it and retry\n`,
    );
  });
});

describe('flash.sh config checks', () => {
  it('refuses a config file too large for the board', () => {
    write(join(tmp, 'big.json'), JSON.stringify({ pad: 'x'.repeat(16400) }));
    const r = flash(['--config', 'big.json']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`flash: error: config file '${join(tmp, 'big.json')}' is 16410 bytes, over the 16384 the board takes: fix it and retry\n`);
  });
});

describe('flash.sh checks', () => {
  it('asks for npm ci when node_modules is missing', () => {
    rmSync(join(root, 'node_modules'), { recursive: true });
    const r = flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('flash: error: node_modules is missing: run npm ci first\n');
  });

  it('fails when the board file is missing', () => {
    rmSync(join(root, 'boards/pico2-w.json'));
    const r = flash(['--board', 'pico2-w']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'flash: error: board file boards/pico2-w.json is missing: it must define bundleBudgetBytes for pico2-w\n',
    );
  });

  it('passes the board to the build command', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    const r = flash(['--board', 'pico2-w']);
    expect(r.status).toBe(0);
    expect(readFileSync(buildLog, 'utf8')).toBe('--board pico2-w\n');
  });

  it('fails when the build fails', () => {
    write(join(tmp, 'bin/broken'), '#!/usr/bin/env bash\necho "src/main.ts: error" >&2\nexit 3\n', 0o755);
    const r = flash([], { FLASH_BUILD_CMD: join(tmp, 'bin/broken') });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'src/main.ts: error\nflash: error: the build failed for pico-w (see above): fix it and run ./flash.sh again\n',
    );
  });

  it('fails when the bundle is over the board budget', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    const r = flash([], { FAKE_BUNDLE_BYTES: String(BUDGET + 1) });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `flash: error: bundle is ${BUDGET + 1} bytes, budget ${BUDGET} for pico-w: shrink the code ` +
        '(see the .meta.json next to the bundle for the biggest inputs)\n',
    );
    expect(serialCalls()).toEqual([]);
  });

  it('accepts a bundle exactly at the budget', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    const r = flash([], { FAKE_BUNDLE_BYTES: String(BUDGET) });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`flash: size: dist/agent.js is ${BUDGET} bytes, budget ${BUDGET} for pico-w\n`);
  });

  it('says how to connect when no board is found', () => {
    addTty('ttyACM0', '1a86', '1-3'); // some other USB serial adapter
    const r = flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'flash: error: no board found: plug the board in with a USB data cable (not a charge-only one) and make sure ' +
        'it runs the Kaluma firmware; BOOTSEL mode is only for installing the Kaluma UF2, not for this; or pass --port\n',
    );
    expect(serialCalls()).toEqual([]);
  });

  it('recognises a board held in BOOTSEL mode', () => {
    addUsbDevice('1-2', '2e8a', '0003');
    const r = flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'flash: error: a board is in BOOTSEL mode (USB drive): BOOTSEL is only for installing the Kaluma UF2 ' +
        'firmware; unplug it and plug it back in without holding BOOTSEL, or pass --port\n',
    );
  });

  it('lists several boards and asks for --port', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    addTty('ttyACM1', '1a86', '1-3');
    addTty('ttyACM2', '2e8a', '1-2');
    const r = flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `flash: error: several boards found (${join(sysRoot, 'dev/ttyACM0')} ${join(sysRoot, 'dev/ttyACM2')}): ` +
        'choose one with --port\n',
    );
    expect(serialCalls()).toEqual([]);
  });

  it('falls back to /dev/serial/by-id when there is no sysfs tty class', () => {
    rmSync(join(sysRoot, 'sys'), { recursive: true });
    const byId = join(sysRoot, 'dev/serial/by-id/usb-Raspberry_Pi_Pico_E6616407E3-if00');
    write(byId, '');
    write(join(sysRoot, 'dev/serial/by-id/usb-1a86_USB_Serial-if00-port0'), '');
    const r = flash([]);
    expect(r.status).toBe(0);
    expect(serialCalls()).toEqual([`scripts/flash/board.ts --port ${byId} --board pico-w --program dist/agent.js`]);
  });

  it('finds /dev/cu.usbmodem* on macOS', () => {
    write(join(sysRoot, 'dev/cu.usbmodem1101'), '');
    write(join(sysRoot, 'dev/cu.Bluetooth-Incoming-Port'), '');
    const r = flash([], { FLASH_OS: 'Darwin' });
    expect(r.status).toBe(0);
    expect(serialCalls()).toEqual([`scripts/flash/board.ts --port ${join(sysRoot, 'dev/cu.usbmodem1101')} --board pico-w --program dist/agent.js`]);
  });

  it('fails when --port does not exist', () => {
    const port = join(sysRoot, 'dev/ttyACM7');
    const r = flash(['--port', port]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `flash: error: port ${port} does not exist: check the name with 'ls /dev/ttyACM* /dev/cu.usbmodem*' and replug the board\n`,
    );
  });

  const hasFuser = spawnSync('bash', ['-c', 'command -v fuser']).status === 0;
  it.skipIf(!hasFuser)('says to close the other serial monitor when the port is open elsewhere', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    const port = join(sysRoot, 'dev/ttyACM0');
    // The wrapping shell keeps the port open while flash.sh runs, like a serial monitor would.
    const r = flash([], {}, (cmd) => ['bash', '-c', 'exec 3<"$0"; "$@"', port, ...cmd]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `flash: error: ${port} is in use by another program: close the other serial monitor or console, then retry\n`,
    );
    expect(serialCalls()).toEqual([]);
  });

  it('needs no serialport native binding (the serial step is plain Node)', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    const r = flash([]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('binding');
  });
});

describe('flash.sh sizes and cold code', () => {
  const manifest = (m: unknown): void => write(join(root, 'dist/agent.cold.json'), JSON.stringify(m));
  // The fake build rewrites dist/agent.js but leaves the manifest alone, like a
  // build that does (or, for the stale case, did) write one.
  const cold = (resident: number, coldBytes: number): unknown => ({
    buildId: '81d8bfb3', residentBytes: resident, coldBytes,
    modules: [{ name: 'console', bytes: 300 }, { name: 'help', bytes: 200 }],
  });

  it('names the cold modules from the manifest and checks only the resident part against the budget', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    write(join(root, 'boards/pico-w.json'), JSON.stringify({ name: 'pico-w', bundleBudgetBytes: 2 * BUDGET, residentBudgetBytes: BUDGET }));
    manifest(cold(BUDGET, 600));
    const r = flash(['--dry-run'], { FAKE_BUNDLE_BYTES: String(BUDGET + 600) });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`flash: size: dist/agent.js is ${BUDGET + 600} bytes (budget ${2 * BUDGET}): resident ${BUDGET}, budget ${BUDGET} for pico-w; cold 600\n`);
    expect(r.stdout).toContain(
      'flash: cold code: console 300 B, help 200 B (build 81d8bfb3) inside dist/agent.js (its leading comment, read back ' +
        'from the program area on the board): no extra transfer\n',
    );
  });

  it('fails when the whole artifact, cold code included, is over its budget', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    write(join(root, 'boards/pico-w.json'), JSON.stringify({ name: 'pico-w', bundleBudgetBytes: BUDGET + 500, residentBudgetBytes: BUDGET }));
    manifest(cold(BUDGET, 600));
    const r = flash([], { FAKE_BUNDLE_BYTES: String(BUDGET + 600) });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`flash: error: bundle is ${BUDGET + 600} bytes with its cold code, budget ${BUDGET + 500} for pico-w: shrink the code\n`);
    expect(serialCalls()).toEqual([]);
  });

  it('fails when the resident part is over the budget', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    manifest(cold(BUDGET + 1, 600));
    const r = flash([], { FAKE_BUNDLE_BYTES: String(BUDGET + 601) });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `flash: error: the resident program is ${BUDGET + 1} bytes, budget ${BUDGET} for pico-w: cut code or make it cold ` +
        '(see the .meta.json next to the bundle for the biggest inputs)\n',
    );
    expect(serialCalls()).toEqual([]);
  });

  it('says "no manifest (old build?)" without one', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    const r = flash(['--dry-run']);
    expect(r.stdout).toContain('flash: cold code: no manifest (old build?)\n');
  });

  it('does not trust a manifest that does not match the bundle', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    manifest(cold(900, 50));
    const r = flash(['--dry-run']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`flash: size: dist/agent.js is 1000 bytes, budget ${BUDGET} for pico-w\n`);
    expect(r.stdout).toContain(
      'flash: cold code: dist/agent.cold.json does not match dist/agent.js (stale manifest?); any cold modules still travel inside dist/agent.js\n',
    );
  });

  it('fails when the bundle does not fit the board\'s program area', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    write(join(root, 'boards/pico-w.json'), JSON.stringify({ name: 'pico-w', bundleBudgetBytes: BUDGET, flash: { programBytes: 1000 } }));
    const r = flash([], { FAKE_BUNDLE_BYTES: '999' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('flash: error: dist/agent.js is 999 bytes; the program area of pico-w holds 998: shrink the code\n');
  });

  it('fails on a NUL byte in the bundle, which would cut the stored program short', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    write(join(tmp, 'bin/build'), '#!/usr/bin/env bash\nmkdir -p dist\nprintf "var a=1;\\0var b=2;" > dist/agent.js\n', 0o755);
    const r = flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('flash: error: dist/agent.js contains a NUL byte, which would cut the stored program short: check scripts/build/build.ts\n');
  });
});

describe('flash.sh dry run', () => {
  it('lists every step and opens no port', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    write(join(tmp, 'cfg.json'), '{"deviceName": "bench-1"}\n');
    const port = join(sysRoot, 'dev/ttyACM0');
    const r = flash(['--board', 'pico2-w', '--config', 'cfg.json', '--dry-run']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe([
      'flash: board: pico2-w',
      'flash: dependencies: node_modules present',
      `flash: config: ${join(tmp, 'cfg.json')} is valid JSON`,
      `flash: build: ${join(tmp, 'bin/build')} --board pico2-w`,
      `flash: size: dist/agent.js is 1000 bytes, budget ${2 * BUDGET} for pico2-w`,
      'flash: cold code: no manifest (old build?)',
      `flash: port: ${port} (the only board found)`,
      `flash: board: would wait up to 40s for the REPL on ${port} and, if the agent is loaded, send maintenance() ` +
        '(reboot without agent and watchdog) before anything else',
      `flash: config: would write ${join(tmp, 'cfg.json')} to /config.json.tmp, read back its size and checksum, then rename it to /config.json`,
      'flash: program: would send dist/agent.js (1000 bytes) with .flash -w, require the board\'s "Done" and .flash -s = 1000, ' +
        'then .load it and read the agent\'s boot line',
      'flash: dry run: nothing was sent to the board',
      '',
    ].join('\n'));
    expect(serialCalls()).toEqual([]);
  });

  it('shows a placeholder port when no board is plugged in', () => {
    const r = flash(['--dry-run']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('flash: port: no board found: plug the board in');
    expect(r.stdout).toContain('flash: board: would wait up to 40s for the REPL on <port> and');
    expect(serialCalls()).toEqual([]);
  });
});

describe('flash.sh run', () => {
  it('hands the port, board, bundle and config to the serial step', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    addTty('ttyACM1', '1a86', '1-3');
    write(join(tmp, 'my config.json'), '{"deviceName": "bench-1"}\n');
    const port = join(sysRoot, 'dev/ttyACM0');
    const r = flash(['--config', 'my config.json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(serialCalls()).toEqual([
      `scripts/flash/board.ts --port ${port} --board pico-w --program dist/agent.js --config ${join(tmp, 'my config.json')}`,
    ]);
    expect(r.stdout.endsWith('flash: done: agent 0.1.0 on pico-w, boot 1, mode running\n')).toBe(true);
  });

  it('uses --port as given and skips detection', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    addTty('ttyACM2', '2e8a', '1-2');
    const port = join(sysRoot, 'dev/ttyACM2');
    const r = flash(['--port', port, '--board', 'pico2-w']);
    expect(r.status).toBe(0);
    expect(serialCalls()).toEqual([`scripts/flash/board.ts --port ${port} --board pico2-w --program dist/agent.js`]);
  });

  it('exits with the serial step\'s status', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    const r = flash([], { FAKE_SERIAL_EXIT: '1' });
    expect(r.status).toBe(1);
  });
});
