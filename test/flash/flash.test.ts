// Runs flash.sh in a throw-away copy of the project layout: fake build, fake
// kaluma that records its arguments, fake /sys and /dev trees. No real serial
// port, no real build output and no real kaluma is touched.
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
let kalumaLog: string;
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
      KALUMA_BIN: join(tmp, 'bin/kaluma'),
      FLASH_BUILD_CMD: join(tmp, 'bin/build'),
      FLASH_SYS_ROOT: sysRoot,
      FLASH_OS: 'Linux',
      FAKE_KALUMA_LOG: kalumaLog,
      FAKE_BUILD_LOG: buildLog,
      FAKE_BUNDLE_BYTES: '1000',
      ...env,
    },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function kalumaCalls(): string[] {
  return existsSync(kalumaLog) ? readFileSync(kalumaLog, 'utf8').split('\n').filter((l) => l !== '') : [];
}

beforeEach(() => {
  tmp = realpathSync(mkdtempSync(join(tmpdir(), 'flash-test-')));
  root = join(tmp, 'project');
  sysRoot = join(tmp, 'fake-root');
  kalumaLog = join(tmp, 'kaluma.log');
  buildLog = join(tmp, 'build.log');
  mkdirSync(root, { recursive: true });
  copyFileSync(FLASH_SH, join(root, 'flash.sh'));
  mkdirSync(join(root, 'node_modules/@serialport/bindings/build/Release'), { recursive: true });
  write(join(root, 'node_modules/@serialport/bindings/build/Release/bindings.node'), 'fake');
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
  // Fake kaluma: records its arguments; behaves like CLI 1.0 (exit status 0 even on errors).
  write(join(tmp, 'bin/kaluma'), [
    '#!/usr/bin/env bash',
    'printf "%s\\n" "$*" >> "$FAKE_KALUMA_LOG"',
    'if [ -n "${FAKE_KALUMA_ERROR:-}" ]; then echo "$FAKE_KALUMA_ERROR" >&2; exit 0; fi',
    'if [ -n "${FAKE_KALUMA_HANG:-}" ]; then exec sleep 30; fi',
    'if [ "$1" = write ]; then echo "Writing agent.js..."',
    '  [ -n "${FAKE_KALUMA_NO_DONE:-}" ] || echo "Done. ($2 : $FAKE_BUNDLE_BYTES bytes)"; fi',
    'if [ "$1" = put ]; then echo "Copying config.json (host) to $3 (device) ."; fi',
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
    expect(kalumaCalls()).toEqual([]);
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
    expect(kalumaCalls()).toEqual([]);
  });

  it('fails on a config file that is not JSON', () => {
    write(join(tmp, 'bad.json'), '{"wifi": {"ssid": "x",}}');
    const r = flash(['--config', 'bad.json']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^flash: error: config file '${join(tmp, 'bad.json')}' is not valid JSON \\(.+\\): fix it and retry\\n$`),
    );
    expect(kalumaCalls()).toEqual([]);
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
    expect(kalumaCalls()).toEqual([]);
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
    expect(kalumaCalls()).toEqual([]);
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
    expect(kalumaCalls()).toEqual([]);
  });

  it('falls back to /dev/serial/by-id when there is no sysfs tty class', () => {
    rmSync(join(sysRoot, 'sys'), { recursive: true });
    const byId = join(sysRoot, 'dev/serial/by-id/usb-Raspberry_Pi_Pico_E6616407E3-if00');
    write(byId, '');
    write(join(sysRoot, 'dev/serial/by-id/usb-1a86_USB_Serial-if00-port0'), '');
    const r = flash([]);
    expect(r.status).toBe(0);
    expect(kalumaCalls()).toEqual([`write dist/agent.js --port ${byId}`]);
  });

  it('finds /dev/cu.usbmodem* on macOS', () => {
    write(join(sysRoot, 'dev/cu.usbmodem1101'), '');
    write(join(sysRoot, 'dev/cu.Bluetooth-Incoming-Port'), '');
    const r = flash([], { FLASH_OS: 'Darwin' });
    expect(r.status).toBe(0);
    expect(kalumaCalls()).toEqual([`write dist/agent.js --port ${join(sysRoot, 'dev/cu.usbmodem1101')}`]);
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
    expect(kalumaCalls()).toEqual([]);
  });

  it('prints the fix when the serialport native binding is missing', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    const missing = join(tmp, 'no/bindings.node');
    const r = flash([], { FLASH_SERIAL_BINDING: missing });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `flash: error: the serialport native binding is missing (${missing}): run ` +
        `'npm rebuild @serialport/bindings --foreground-scripts' in ${root} (it compiles with python3, make and a ` +
        'C++ compiler when no prebuilt binary can be downloaded)\n',
    );
    expect(kalumaCalls()).toEqual([]);
  });

  it('checks the default binding path inside node_modules', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    rmSync(join(root, 'node_modules/@serialport/bindings/build'), { recursive: true });
    const r = flash([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      '(node_modules/@serialport/bindings/build/Release/bindings.node): run ' +
        "'npm rebuild @serialport/bindings --foreground-scripts'",
    );
  });
});

describe('flash.sh dry run', () => {
  it('lists every step with the exact commands and runs no kaluma', () => {
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
      `flash: port: ${port} (the only board found)`,
      'flash: serial binding: present',
      `flash: config: would run: ${join(tmp, 'bin/kaluma')} put ${join(tmp, 'cfg.json')} /config.json --port ${port}`,
      `flash: program: would run: ${join(tmp, 'bin/kaluma')} write dist/agent.js --port ${port}`,
      'flash: dry run: nothing was sent to the board',
      '',
    ].join('\n'));
    expect(kalumaCalls()).toEqual([]);
  });

  it('shows a placeholder port when no board is plugged in', () => {
    const r = flash(['--dry-run']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('flash: port: no board found: plug the board in');
    expect(r.stdout).toContain(`flash: program: would run: ${join(tmp, 'bin/kaluma')} write dist/agent.js --port <port>\n`);
    expect(kalumaCalls()).toEqual([]);
  });
});

describe('flash.sh run', () => {
  it('copies the config first, then writes the program, with the exact kaluma arguments', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    addTty('ttyACM1', '1a86', '1-3');
    write(join(tmp, 'my config.json'), '{"deviceName": "bench-1"}\n');
    const port = join(sysRoot, 'dev/ttyACM0');
    const r = flash(['--config', 'my config.json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(kalumaCalls()).toEqual([
      `put ${join(tmp, 'my config.json')} /config.json --port ${port}`,
      `write dist/agent.js --port ${port}`,
    ]);
    expect(r.stdout).toContain(`flash: config: ${join(tmp, 'bin/kaluma')} put ${join(tmp, 'my\\ config.json')} /config.json --port ${port}\n`);
    expect(r.stdout).toContain('Done. (dist/agent.js : 1000 bytes)\n');
    expect(r.stdout.endsWith(`flash: done: the agent is running on ${port}\n`)).toBe(true);
  });

  it('uses --port as given and skips detection', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    addTty('ttyACM2', '2e8a', '1-2');
    const port = join(sysRoot, 'dev/ttyACM2');
    const r = flash(['--port', port, '--board', 'pico2-w']);
    expect(r.status).toBe(0);
    expect(kalumaCalls()).toEqual([`write dist/agent.js --port ${port}`]);
  });

  it('fails when kaluma reports an error even though it exits 0', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    const port = join(sysRoot, 'dev/ttyACM0');
    const r = flash([], { FAKE_KALUMA_ERROR: `Error: Error: No such file or directory, cannot open ${port}` });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `Error: Error: No such file or directory, cannot open ${port}\n` +
        `flash: error: could not open ${port}: replug the board and check the port name\n`,
    );
    expect(r.stdout).not.toContain('flash: done');
  });

  it('names a --port that is not a serial device', () => {
    const port = join(tmp, 'not-a-tty');
    write(port, '');
    const r = flash(['--port', port], {
      FAKE_KALUMA_ERROR: '[Error: Error: Inappropriate ioctl for device setting custom baud rate of 115200]',
    });
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')[1]).toBe(
      `flash: error: ${port} is not a serial port: pass the board's USB serial port (/dev/ttyACM* or /dev/cu.usbmodem*) to --port`,
    );
  });

  const hasTimeout = spawnSync('bash', ['-c', 'command -v timeout']).status === 0;
  it.skipIf(!hasTimeout)('gives up on a board that never answers', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    const r = flash([], { FAKE_KALUMA_HANG: '1', FLASH_KALUMA_TIMEOUT: '1' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'flash: error: the board did not answer within 1s: press reset (or boot with GP22 tied to GND if the ' +
        'program hangs at start) and retry\n',
    );
  });

  it('fails when kaluma write does not confirm the upload', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    const r = flash([], { FAKE_KALUMA_NO_DONE: '1' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('flash: error: kaluma write did not confirm the upload: replug the board and retry\n');
  });

  it('stops before writing the program when copying the config fails', () => {
    addTty('ttyACM0', '2e8a', '1-1');
    write(join(tmp, 'cfg.json'), '{}');
    const r = flash(['--config', 'cfg.json'], { FAKE_KALUMA_ERROR: 'Error: Permission denied, cannot open x' });
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')[1]).toBe(
      `flash: error: no permission to use ${join(sysRoot, 'dev/ttyACM0')}: on Linux run 'sudo usermod -aG dialout $USER' and log in again`,
    );
    expect(kalumaCalls()).toHaveLength(1);
    expect(kalumaCalls()[0]).toMatch(/^put /);
  });
});
