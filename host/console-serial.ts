// Serial console for a board running Kaluma: relays the terminal to the
// board's USB serial port byte for byte (raw mode, so Ctrl+C reaches the
// board and aborts its running code). Ctrl+] leaves.
//
//   tsx host/console-serial.ts [--port /dev/ttyACM0] [--baud 115200]
//
// Without --port, the only connected board (USB vendor id 2e8a) is used.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const EXIT_KEY = 0x1d; // Ctrl+]
const RPI_VENDOR_ID = '2e8a';
const BINDING_FIX = 'npm rebuild @serialport/bindings --foreground-scripts';

export interface ConsoleOptions {
  port: string | undefined;
  baudRate: number;
  help: boolean;
}

export const USAGE = 'Usage: console-serial [--port PORT] [--baud RATE] [--help]   (Ctrl+] exits)';

/** Parses the command line; throws an Error whose message is meant for the user. */
export function parseConsoleArgs(argv: readonly string[]): ConsoleOptions {
  const options: ConsoleOptions = { port: undefined, baudRate: 115200, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = name === arg ? undefined : arg.slice(eq + 1);
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new Error(`${name} needs a value`);
      return v;
    };
    switch (name) {
      case '--port':
        options.port = value();
        break;
      case '--baud': {
        const raw = value();
        const n = Number(raw);
        if (!/^[0-9]+$/.test(raw) || n <= 0) throw new Error(`--baud must be a positive integer, got '${raw}'`);
        options.baudRate = n;
        break;
      }
      case '-h':
      case '--help':
        options.help = true;
        break;
      default:
        throw new Error(`unknown argument '${arg}'`);
    }
  }
  return options;
}

export interface PortInfo {
  path: string;
  vendorId?: string | undefined;
}

/**
 * USB serial ports on Linux with their vendor ids, read from sysfs (the
 * serialport list() needs udevadm, which minimal systems lack). `root` is a
 * prefix for /sys and /dev, for tests.
 */
export function listLinuxTtyPorts(root = ''): PortInfo[] {
  const classDir = join(root, '/sys/class/tty');
  let names: string[];
  try {
    names = readdirSync(classDir).filter((n) => /^ttyACM[0-9]+$/.test(n)).sort();
  } catch {
    return [];
  }
  return names.map((name) => {
    let vendorId: string | undefined;
    try {
      // Not path.join: '..' must be resolved by the kernel through the device symlink.
      vendorId = readFileSync(`${join(classDir, name, 'device')}/../idVendor`, 'utf8').trim();
    } catch {
      vendorId = undefined;
    }
    return { path: join(root, '/dev', name), vendorId };
  });
}

/** Picks the single board among the listed ports, or explains why it cannot. */
export function pickBoardPort(ports: readonly PortInfo[]): { path: string } | { error: string } {
  const boards = ports.filter((p) => (p.vendorId ?? '').toLowerCase() === RPI_VENDOR_ID);
  const [only] = boards;
  if (boards.length === 1 && only) return { path: only.path };
  if (boards.length === 0) {
    return { error: 'no board found: plug the board in with a USB data cable (not in BOOTSEL mode), or pass --port' };
  }
  return { error: `several boards found (${boards.map((b) => b.path).join(' ')}): choose one with --port` };
}

/** Splits keyboard input at the exit key: what goes to the board, and whether to leave. */
export function splitAtExitKey(chunk: Uint8Array): { forward: Uint8Array; exit: boolean } {
  const at = chunk.indexOf(EXIT_KEY);
  return at < 0 ? { forward: chunk, exit: false } : { forward: chunk.subarray(0, at), exit: true };
}

// The part of the serialport 9 API used here (the package ships no types).
interface SerialPortInstance {
  open(cb: (err: Error | null) => void): void;
  write(data: Uint8Array): boolean;
  close(cb?: (err: Error | null) => void): void;
  on(event: 'data', cb: (data: Buffer) => void): this;
  on(event: 'error', cb: (err: Error) => void): this;
  on(event: 'close', cb: () => void): this;
  readonly isOpen: boolean;
}
interface SerialPortClass {
  new (path: string, options: { baudRate: number; autoOpen: boolean }): SerialPortInstance;
  list(): Promise<PortInfo[]>;
}

function loadSerialPort(): SerialPortClass {
  const require = createRequire(import.meta.url);
  try {
    return require('serialport') as SerialPortClass;
  } catch (e) {
    const reason = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new Error(`cannot load serialport (${reason}): run '${BINDING_FIX}'`);
  }
}

function fail(message: string): never {
  process.stderr.write(`console: error: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let options: ConsoleOptions;
  try {
    options = parseConsoleArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`console: error: ${(e as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }

  let SerialPort: SerialPortClass;
  try {
    SerialPort = loadSerialPort();
  } catch (e) {
    fail((e as Error).message);
  }

  let path = options.port;
  if (path === undefined) {
    const ports = process.platform === 'linux' ? listLinuxTtyPorts() : await SerialPort.list();
    const picked = pickBoardPort(ports);
    if ('error' in picked) fail(picked.error);
    path = picked.path;
  }

  const serial = new SerialPort(path, { baudRate: options.baudRate, autoOpen: false });
  const stdin = process.stdin;
  let leaving = false;

  const restoreTerminal = (): void => {
    if (stdin.isTTY) stdin.setRawMode(false);
    stdin.pause();
  };
  const leave = (code: number, message?: string): void => {
    if (leaving) return;
    leaving = true;
    restoreTerminal();
    if (message) process.stderr.write(`\r\n${message}\n`);
    if (serial.isOpen) serial.close(() => process.exit(code));
    else process.exit(code);
  };

  serial.on('error', (err) => leave(1, `console: error: ${err.message}`));
  serial.on('close', () => leave(1, 'console: the port closed (board unplugged or reset?): run the console again'));
  serial.on('data', (data) => {
    process.stdout.write(data);
  });

  serial.open((err) => {
    if (err) {
      const busy = /busy|lock/i.test(err.message) ? ': close the other serial monitor and retry' : '';
      fail(`cannot open ${path}: ${err.message}${busy}`);
    }
    process.stderr.write(`console: connected to ${path} at ${options.baudRate} baud; Ctrl+] exits\r\n`);
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.on('data', (chunk: Buffer) => {
      const { forward, exit } = splitAtExitKey(chunk);
      if (forward.length > 0) serial.write(forward);
      if (exit) leave(0);
    });
    stdin.on('end', () => leave(0));
    stdin.resume();
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) void main();
