// Runs programs on the device's runtime built for the PC (Kaluma 1.2.1 with
// the Pico W's heap, docs/architecture.md, Measuring). The binary is never part of this
// repository: its path comes from --engine PATH or KALUMA_ENGINE, and without
// one a script says so in one line and stops.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBundle } from '../../build/build';

/** `--NAME VALUE` from the command line. */
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf('--' + name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export function enginePath(): string | undefined {
  const p = arg('engine') || process.env['KALUMA_ENGINE'];
  return p && existsSync(p) ? p : undefined;
}

/** How an engine binary is started here: itself, or through a user-mode emulator. */
export interface EngineCommand {
  cmd: string;
  /** Put in front of the engine's own arguments. */
  prefix: string[];
}

const commands = new Map<string, EngineCommand | string>();

/**
 * The engine is a 32-bit x86 Linux executable. A kernel built without 32-bit
 * support refuses it (exec format error; Node then hands it to /bin/sh, which
 * fails on the binary), and there Debian's qemu-user runs it unchanged: the
 * JS heap, the program and every figure are the engine's own, only slower.
 * Found once per path by running a one-line program each way.
 */
function probe(engine: string): EngineCommand | string {
  const dir = mkdtempSync(join(tmpdir(), 'engine-probe-'));
  try {
    const file = join(dir, 'probe.js');
    writeFileSync(file, "print('engine-probe-ok');\n");
    const env: NodeJS.ProcessEnv = { ...process.env, KALUMA_NO_REPL: '1' };
    delete env['KALUMA_FLASH_FILE'];
    for (const c of [{ cmd: engine, prefix: [] }, { cmd: 'qemu-i386', prefix: [engine] }]) {
      const r = spawnSync(c.cmd, [...c.prefix, file], { env, encoding: 'latin1', timeout: 20000 });
      if (!r.error && r.stdout.includes('engine-probe-ok')) return c;
    }
    return `${engine} does not run on this machine (its kernel refuses 32-bit x86 programs?) and no qemu-i386 is on PATH to run it (Debian package qemu-user)`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The command that starts `engine` here, or why it cannot run. */
export function engineCommand(engine: string): EngineCommand | string {
  let c = commands.get(engine);
  if (!c) commands.set(engine, (c = probe(engine)));
  return c;
}

/** The engine's command, or an exception saying why it cannot run (for callers that already decided to run it). */
function commandOf(engine: string): EngineCommand {
  const c = engineCommand(engine);
  if (typeof c === 'string') throw new Error(c);
  return c;
}

/** The command and arguments that start the engine with `args`, as this machine can run it. */
export function engineArgv(engine: string, args: string[]): [string, string[]] {
  const c = commandOf(engine);
  return [c.cmd, [...c.prefix, ...args]];
}

/** Bundles an entry as the device bundle is built (IIFE, es2019, Kaluma modules external). */
export async function buildProgram(entry: string, outfile: string): Promise<{ outfile: string; bytes: number }> {
  const r = await buildBundle({ entry, outfile });
  return { outfile: r.outfile, bytes: r.bytes };
}

export interface EngineRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs a program file on the engine (no REPL, flash in memory), killed after
 * timeoutMs. `onLine` sees each line of its output as it comes, with the
 * engine's pid (to read what JS cannot see, e.g. /proc/PID/status).
 */
export function runEngine(
  engine: string,
  file: string,
  o: { timeoutMs?: number; env?: Record<string, string>; onLine?: (line: string, pid: number) => void } = {},
): Promise<EngineRun> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const env: NodeJS.ProcessEnv = { ...process.env, KALUMA_NO_REPL: '1', ...o.env };
    if (!o.env || !o.env['KALUMA_FLASH_FILE']) delete env['KALUMA_FLASH_FILE'];
    const child = spawn(...engineArgv(engine, [file]), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let from = 0;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('latin1');
      if (!o.onLine) return;
      for (let nl = stdout.indexOf('\n', from); nl >= 0; nl = stdout.indexOf('\n', from)) {
        o.onLine(stdout.slice(from, nl).replace(/\r$/, ''), child.pid!);
        from = nl + 1;
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('latin1')));
    const kill = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 600000);
    child.on('close', (code) => {
      clearTimeout(kill);
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

/** The engine's verdict in words: exit 1 is a JerryScript fatal error, 3 the watchdog. */
export function verdict(r: EngineRun): string {
  if (r.code === 0) return 'exit 0';
  const fatal = /jerry fatal error \d+ \(\w+\)/.exec(r.stderr);
  return 'exit ' + String(r.code) + (fatal ? ': ' + fatal[0] : r.code === null ? ' (killed)' : '');
}

/**
 * The command-line entry of an engine script: without an engine it says so
 * in one line and stops; a false result sets the exit code.
 */
export function engineMain(name: string, f: (engine: string) => Promise<boolean>): void {
  const engine = enginePath();
  if (!engine) {
    console.log(name + ': no engine given (--engine PATH or KALUMA_ENGINE); skipped');
    return;
  }
  const c = engineCommand(engine);
  if (typeof c === 'string') {
    console.log(name + ': ' + c + '; skipped');
    return;
  }
  f(engine).then(
    (ok) => {
      if (!ok) process.exitCode = 1;
    },
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
