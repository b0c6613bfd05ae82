// The pure parts of the serial console: argument parsing, board choice and
// the exit key. Nothing here opens a port.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  EXIT_KEY, listLinuxTtyPorts, parseConsoleArgs, pickBoardPort, splitAtExitKey, USAGE,
} from '../../host/console-serial';

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
