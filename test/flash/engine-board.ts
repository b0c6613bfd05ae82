// A board for the flash and console tests that runs the device's own
// firmware: Kaluma 1.2.1 built for the PC (its path in KALUMA_ENGINE), its
// REPL on a pseudo-terminal made by socat, as a Pico W's USB serial port.
//
//   host program <-> pty (socat PTY,link=PORT) <-> this relay <-> engine REPL
//
// The relay in the middle only copies bytes (and keeps what the board said,
// for failure messages); it is there to play the board's power:
// - power-up: the engine starts on the board's flash image and gets `.load`,
//   which is what the firmware does at power-up (the engine does not run the
//   stored program by itself);
// - a reset (the engine ends: its watchdog expired, which is how the agent
//   reboots): the port goes away (socat is stopped and its link removed), and
//   comes back with a new power-up, as a board's USB serial port does;
// - a fatal error of the engine (exit 1): the board would hang; it stays off,
//   and `events` says so.
// socat runs with wait-slave and ignoreeof: it holds no end of the port's
// pty itself (no "in use by another program"), and a host that closes the
// port and opens it again finds the same board, as with a USB port.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBundle } from '../../scripts/build/build';
import { engineCommand } from '../../scripts/measure/engine/lib';
import type { EngineCommand } from '../../scripts/measure/engine/lib';

/** The flash image's program area (text + NUL), as the engine lays it out. */
const PROGRAM_AT = 4 * 4096;
const FLASH_BYTES = 1064960;

/**
 * How to run the engine here, or why these tests cannot run: one line for
 * the skip message. Needs KALUMA_ENGINE (runnable natively or through
 * qemu-i386, as scripts/measure/engine/lib.ts picks) and socat.
 */
export function engineBoardSupport(): EngineCommand | string {
  const engine = process.env['KALUMA_ENGINE'];
  if (!engine) return 'no engine: set KALUMA_ENGINE to the device runtime built for the PC';
  if (!existsSync(engine)) return `KALUMA_ENGINE=${engine} does not exist`;
  const c = engineCommand(engine);
  if (typeof c === 'string') return c;
  if (spawnSync('socat', ['-V'], { stdio: 'ignore' }).status !== 0) return 'socat is missing (Debian package socat)';
  return c;
}

/** Builds the device bundle as `npm run build` does, into `dir` (dist/ is left alone). */
export async function buildAgent(dir: string): Promise<{ file: string; bytes: number }> {
  const r = await buildBundle({ outfile: join(dir, 'agent.js') });
  return { file: r.outfile, bytes: r.bytes };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class EngineBoard {
  /** What happened to the board, in order: power-ups, resets, fatal errors. */
  readonly events: string[] = [];
  readonly dir: string;
  /** The port: socat's link to the pty. */
  readonly port: string;
  /** The board's flash (KALUMA_FLASH_FILE). */
  readonly flash: string;
  /** Power-ups so far. */
  powerUps = 0;
  private said = '';
  private engine: ChildProcessWithoutNullStreams | undefined;
  private socat: ChildProcessWithoutNullStreams | undefined;
  private stopping = false;
  private cycle: Promise<void> = Promise.resolve();

  constructor(private readonly run: EngineCommand, private readonly unplugMs = 300) {
    this.dir = mkdtempSync(join(tmpdir(), 'engine-board-'));
    this.port = join(this.dir, 'ttyACM0');
    this.flash = join(this.dir, 'board.img');
  }

  /** Everything the board printed since `from` (see mark()), escapes and all. */
  output(from = 0): string {
    return this.said.slice(from);
  }

  mark(): number {
    return this.said.length;
  }

  /** The stored program (the program area up to its NUL), or '' when erased. */
  program(): string {
    if (!existsSync(this.flash)) return '';
    const area = readFileSync(this.flash).subarray(PROGRAM_AT, FLASH_BYTES);
    if (area[0] === 0xff) return '';
    const end = area.indexOf(0);
    return area.subarray(0, end < 0 ? area.length : end).toString('latin1');
  }

  /** Stores a program as `.flash -w` does (before start(): the board is off). */
  store(program: string): void {
    const img = existsSync(this.flash) ? readFileSync(this.flash) : Buffer.alloc(FLASH_BYTES, 0xff);
    const bytes = Buffer.from(program, 'latin1');
    if (bytes.length + 1 > 128 * 4096) throw new Error(`a program of ${bytes.length} B does not fit the program area`);
    img.fill(0xff, PROGRAM_AT, PROGRAM_AT + 128 * 4096);
    bytes.copy(img, PROGRAM_AT);
    img[PROGRAM_AT + bytes.length] = 0;
    writeFileSync(this.flash, img);
  }

  /** Powers the board up; resolves once its port exists. */
  async start(): Promise<void> {
    await this.powerUp();
  }

  /**
   * Waits until `test` holds for what the board printed since `from`, within
   * `ms` (a budget); false when it never did.
   */
  async waitFor(test: (said: string) => boolean, from: number, ms: number): Promise<boolean> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (test(this.output(from))) return true;
      await sleep(50);
    }
    return test(this.output(from));
  }

  private async powerUp(): Promise<void> {
    this.powerUps++;
    this.events.push('power up');
    const env: NodeJS.ProcessEnv = { ...process.env, KALUMA_RAW_CONSOLE: '1', KALUMA_FLASH_FILE: this.flash };
    delete env['KALUMA_NO_REPL'];
    const engine = spawn(this.run.cmd, [...this.run.prefix], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.engine = engine;
    let stderr = '';
    engine.stderr.on('data', (d: Buffer) => (stderr += d.toString('latin1')));
    engine.stdin.on('error', () => undefined);
    // The firmware runs the stored program at power-up.
    engine.stdin.write('.load\r');
    const socat = spawn('socat', [`PTY,link=${this.port},rawer,wait-slave,ignoreeof`, 'STDIO'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.socat = socat;
    socat.stdin.on('error', () => undefined);
    socat.stderr.on('data', (d: Buffer) => this.events.push('socat: ' + d.toString('latin1').trim()));
    engine.stdout.on('data', (d: Buffer) => {
      this.said += d.toString('latin1');
      if (this.socat === socat) socat.stdin.write(d);
    });
    socat.stdout.on('data', (d: Buffer) => {
      if (this.engine === engine) engine.stdin.write(d);
    });
    socat.on('exit', (code, signal) => {
      if (this.socat === socat && !this.stopping) this.events.push(`socat ended by itself (${signal ?? String(code)})`);
    });
    engine.on('exit', (code, signal) => {
      if (this.engine !== engine || this.stopping) return;
      this.engine = undefined;
      const fatal = /jerry fatal error[^\n]*/.exec(stderr);
      if (code === 3) this.events.push('reset: watchdog');
      else this.events.push(`engine ended: ${signal ?? `exit ${String(code)}`}${fatal ? ` (${fatal[0]})` : ''}`);
      // A fatal error hangs the board; anything else (the watchdog) resets it.
      this.cycle = this.cycle.then(() => this.unplug()).then(() => (code === 1 || this.stopping ? undefined : this.replug()));
    });
    const end = Date.now() + 10000;
    while (!existsSync(this.port) && Date.now() < end) await sleep(20);
    if (!existsSync(this.port)) throw new Error(`socat made no port at ${this.port} within 10 s: ${this.events.join('; ')}`);
  }

  private async replug(): Promise<void> {
    await sleep(this.unplugMs);
    if (!this.stopping) await this.powerUp();
  }

  /** The USB port goes away: socat stops, its link goes. */
  private async unplug(): Promise<void> {
    const socat = this.socat;
    this.socat = undefined;
    if (socat) await ended(socat, 'SIGTERM');
    try {
      unlinkSync(this.port);
    } catch {
      /* socat removed it */
    }
  }

  /** Turns everything off: the engine and socat are killed and waited for, the files removed. */
  async stop(): Promise<void> {
    this.stopping = true;
    // A reset under way finishes first (it powers nothing up once stopping).
    await this.cycle.catch(() => undefined);
    const engine = this.engine;
    this.engine = undefined;
    if (engine) await ended(engine, 'SIGKILL');
    await this.unplug();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Sends `signal` and waits for the exit; SIGKILL after 3 s. */
async function ended(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const t = setTimeout(() => child.kill('SIGKILL'), 3000);
  await gone;
  clearTimeout(t);
}
