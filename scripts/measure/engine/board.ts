// The unmodified device bundle on the device's engine, behind a stand-in for
// the radio driver (board.entry.ts). Not a CI test; used by the bench.
//
// The board's console is on, as on a Pico W: lines can be typed at Kaluma's
// own REPL (global-scope JavaScript, and its `.gc` / `.mem` dot-commands),
// and every run ends with `.gc` + `.mem`, the REPL's own figure of the live set.
import { spawn } from 'node:child_process';
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { buildBundle } from '../../build/build';
import { I2C_KINDS } from '../../../src/sensors/i2c/kinds';
import { buildProgram, engineArgv, verdict, type EngineRun } from './lib';

export interface Mark {
  /** 0 for the first boot, 1 after the first watchdog reset, ... */
  boot: number;
  /** The program's clock (ms): real time × speed. */
  t: number;
  /** Real ms since the run started (boots included), as the runner got it. */
  realMs: number;
  used: number;
  /** heapUsed right after a collection forced by small garbage; -1 when none came. */
  floor: number;
  peak: number;
  total: number;
  /** Service writes answered, and the records they carried. */
  writes: number;
  records: number;
  harm: number;
}

/** A `.mem` answer of the REPL, and when it came. */
export interface Mem {
  realMs: number;
  occupied: number;
  peak: number;
  total: number;
}

export interface BoardRun {
  engine: string;
  run: EngineRun;
  verdict: string;
  /** ERR_OUT_OF_MEMORY or another fatal error of the engine. */
  died: boolean;
  marks: Mark[];
  mems: Mem[];
  bundleBytes: number;
  /** Engine starts: 1 + the watchdog resets the board went through. */
  boots: number;
}

export interface BoardOptions {
  /** /config.json as saved; none: the agent boots unconfigured. */
  config?: object;
  /** Hard limit of real time. */
  seconds: number;
  /** Real ms between heap marks. */
  periodMs?: number;
  /** The AP is invisible over [from, to) of the program's clock. */
  apDownMs?: [number, number];
  /** The program's clock runs this many times faster than real time. */
  speed?: number;
  drainBatch?: number;
  /** A program file instead of the device bundle ('' for nothing: the stand-in alone). */
  bundle?: string;
  /** No stand-in either: only a timer that keeps the engine up (Kaluma's own start-up); its marks carry no figures, the REPL's .mem does. */
  bare?: boolean;
  /** Lines typed at the REPL, at real ms after the first heap mark of boot `typedOnBoot`. */
  typed?: { atMs: number; line: string }[];
  /** Stop (after `.gc` + `.mem`) once this holds. */
  until?: (marks: Mark[], stdout: string) => boolean;
  /** Name of the program file, so that runs can go side by side. */
  name?: string;
  /**
   * A power cut in the first boot once this holds (the engine is killed, no
   * `.gc`/`.mem`), then the board starts again on the same flash: what a
   * board does on every later boot, without the first boot's one-off work
   * (checking a config.json written by flash.sh, for one).
   */
  cutFirstBoot?: (marks: Mark[]) => boolean;
  /** Each engine process as it starts (its pid, and which boot it is), for tools that read it from outside (scripts/measure/engine/gc-trace.ts). */
  onSpawn?: (pid: number, boot: number) => void;
  /** Each piece of the engine's output as it arrives, for tools that put it beside what they read from outside. */
  onOutput?: (text: string) => void;
  /** The boot (1 = the first) `typed` goes to; default the boot after the cut with cutFirstBoot, else the first. */
  typedOnBoot?: number;
  /**
   * Bytes the stand-in keeps as ballast, so that its own live set is a whole
   * number of the engine's collection steps (npm run bench -- --align): the
   * agent's count then meets the engine's limits where a board's would.
   */
  pad?: number;
  /** false: the marks skip the post-collection probe (their floor is -1), which itself carries heapUsed up to the next limit. */
  probe?: boolean;
  /** The stand-in service answers writes to this device 401 (unknown API key) until the program's clock reaches untilMs. */
  refuse?: { deviceId: number; untilMs: number };
  /** The document the stand-in service holds on the JSON device 12 (PIN 12), a configuration device; '{}' when not given. */
  remoteDoc?: string;
  /** The stand-in for Kaluma's 'i2c' module (i2c-standin.ts, its own heap said there) in front of the radio's; default: when the config has a sensor of an I2C kind. */
  i2c?: boolean;
}

let agentBundle: Promise<{ outfile: string; bytes: number }> | undefined;
let standIn: Promise<string> | undefined;
let i2cStandIn: Promise<string> | undefined;

/** Whether a saved config has a sensor of an I2C kind. */
const hasI2cSensor = (config: object | undefined): boolean =>
  !!config && ((config as { sensors?: { kind?: string }[] }).sensors ?? []).some((s) => s.kind !== undefined && s.kind in I2C_KINDS);

const MARK = /@HEAP t=(\d+) used=(\d+) floor=(-?\d+) peak=(\d+) total=(\d+) writes=(\d+) records=(\d+) harm=(\d+)/g;
const MEM = /total: (\d+), occupied: (\d+), peak: (\d+)/g;
/** Exit code of the engine when the emulated watchdog expires: the board resets. */
const WATCHDOG_RESET = 3;
const MAX_BOOTS = 12;

/**
 * Runs the board until `until`, the time limit or a fatal error. A watchdog
 * reset (the agent reboots itself that way) starts the same program again on
 * the same flash (KALUMA_FLASH_FILE), as the board does; the stand-in's clock,
 * its AP schedule and its counters carry over, heapPeak starts again.
 */
export async function runBoard(engine: string, o: BoardOptions): Promise<BoardRun> {
  const name = o.name ?? 'board';
  const flash = `dist/engine/${name}.img`;
  rmSync(flash, { force: true });
  let bundleBytes = 0;
  let tail = '';
  // The bundle's cold section (src/cold.ts) stays at the program's first
  // byte, where the loader reads it; the stand-in goes after it.
  let head = '';
  if (!o.bare) {
    if (o.bundle === undefined) {
      agentBundle = agentBundle || buildBundle({ outfile: 'dist/engine/agent.js' });
      const b = await agentBundle;
      tail = readFileSync(b.outfile, 'utf8');
      bundleBytes = b.bytes;
    } else if (o.bundle) {
      tail = readFileSync(o.bundle, 'utf8');
      bundleBytes = tail.length;
    }
    standIn = standIn || buildProgram('scripts/measure/engine/board.entry.ts', 'dist/engine/board-pre.js').then((r) => readFileSync(r.outfile, 'utf8'));
    const cut = tail.startsWith('/*PDA-COLD ') ? tail.indexOf('*/\n') + 3 : 0;
    head = tail.slice(0, cut);
    let i2c = '';
    if (o.i2c ?? hasI2cSensor(o.config)) {
      // A script of its own, not a device build: no cold section, nothing on the heap but itself.
      i2cStandIn = i2cStandIn || build({ entryPoints: ['scripts/measure/engine/i2c-standin.ts'], bundle: true, format: 'iife', target: 'es2019', minify: true, write: false }).then((r) => r.outputFiles[0]!.text);
      i2c = await i2cStandIn;
    }
    tail = i2c + (await standIn) + '\n' + tail.slice(cut);
  }
  const t0 = Date.now();
  const marks: Mark[] = [];
  const mems: Mem[] = [];
  const runs: EngineRun[] = [];
  const state = { offsetMs: 0, writes: 0, records: 0 };
  let boots = 0;
  for (;;) {
    boots++;
    let program: string;
    if (o.bare) {
      program = "setInterval(function () { print('@HEAP t=0 used=0 floor=-1 peak=0 total=0 writes=0 records=0 harm=0\\n'); }, " + (o.periodMs ?? 1000) + ');\n';
    } else {
      const bench = {
        // /config.json is on the flash from the first boot on.
        config: o.config && boots === 1 ? JSON.stringify(o.config) : undefined,
        ssid: 'greenhouse-north',
        periodMs: o.periodMs ?? 1000,
        apDownMs: o.apDownMs,
        hosts: { 'data.example.net': '10.0.0.5' },
        speed: o.speed,
        drainBatch: o.drainBatch,
        pad: o.pad || undefined,
        probe: o.probe === false ? false : undefined,
        refuse: o.refuse,
        remoteDoc: o.remoteDoc,
        ...state,
      };
      program = head + 'var __BENCH = ' + JSON.stringify(bench) + ';\n' + tail;
    }
    const file = `dist/engine/${name}.js`;
    // A bare run may be the first of a clean tree: nothing made dist/engine yet.
    mkdirSync('dist/engine', { recursive: true });
    writeFileSync(file, program);
    storeProgram(flash, program);
    const left = o.seconds * 1000 - (Date.now() - t0);
    const run = await drive(engine, flash, { ...o, seconds: left / 1000, typed: boots === (o.typedOnBoot || (o.cutFirstBoot ? 2 : 1)) ? o.typed : undefined, cutFirstBoot: boots === 1 ? o.cutFirstBoot : undefined }, marks, boots - 1);
    runs.push(run);
    const got = parseMarks(run.stdout, boots - 1);
    got.forEach((m, i) => (m.realMs = run.startMs - t0 + (run.markTimes[i] ?? 0)));
    marks.push(...got);
    [...run.stdout.matchAll(MEM)].forEach((m, i) => mems.push({ realMs: run.startMs - t0 + (run.memTimes[i] ?? 0), total: +m[1]!, occupied: +m[2]!, peak: +m[3]! }));
    const last = marks[marks.length - 1];
    if ((run.code !== WATCHDOG_RESET && !run.cut) || boots >= MAX_BOOTS || Date.now() - t0 >= o.seconds * 1000) break;
    // The program's clock went on while the board was down for a moment.
    state.offsetMs += run.ms * Math.max(1, Math.floor(o.speed ?? 1));
    if (last) Object.assign(state, { writes: last.writes, records: last.records });
  }
  rmSync(flash, { force: true });
  const run: EngineRun = {
    code: runs[runs.length - 1]!.code,
    stdout: runs.map((r) => r.stdout).join('\n@BOOT\n'),
    stderr: runs.map((r) => r.stderr).join(''),
    ms: Date.now() - t0,
  };
  const died = run.code !== null && run.code !== WATCHDOG_RESET && /jerry fatal error/.test(run.stderr);
  return { engine, run, verdict: died || run.code !== null ? verdict(run) : 'running when stopped', died, marks, mems, bundleBytes, boots };
}

interface Driven extends EngineRun {
  /** Ended by cutFirstBoot. */
  cut: boolean;
  startMs: number;
  markTimes: number[];
  memTimes: number[];
}

/** Flash image layout of the engine (as on a Pico W): 4 KB sectors, the program area from sector 4. */
const FLASH_BYTES = 1064960;
const PROGRAM_AT = 4 * 4096;

/** Puts `program` into the flash image's program area (text + NUL), as `.flash -w` does. */
export function storeProgram(flash: string, program: string): void {
  let img: Buffer;
  try {
    img = readFileSync(flash);
  } catch {
    img = Buffer.alloc(FLASH_BYTES, 0xff);
  }
  const bytes = Buffer.from(program, 'utf8');
  if (bytes.length + 1 > 128 * 4096) throw new Error(`program of ${bytes.length} B does not fit the program area`);
  bytes.copy(img, PROGRAM_AT);
  img[PROGRAM_AT + bytes.length] = 0;
  writeFileSync(flash, img);
}

/** One boot from the stored program (the REPL's `.load`, as a board after power-up), with the REPL on stdin: typed lines, the stop rule, `.gc` + `.mem` at the end. */
function drive(engine: string, flash: string, o: BoardOptions, before: Mark[], boot: number): Promise<Driven> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const env: Record<string, string | undefined> = { ...process.env, KALUMA_FLASH_FILE: flash };
    delete env['KALUMA_NO_REPL'];
    delete env['KALUMA_RAW_CONSOLE'];
    const child = spawn(...engineArgv(engine, []), { env, stdio: ['pipe', 'pipe', 'pipe'] });
    if (o.onSpawn && child.pid) o.onSpawn(child.pid, boot);
    child.stdin.write('.load\n');
    let stdout = '';
    let stderr = '';
    const markTimes: number[] = [];
    const memTimes: number[] = [];
    let memsSeen = 0;
    let stopping = false;
    let ended = false;
    let cut = false;
    const timers: NodeJS.Timeout[] = [];
    const type = (line: string): void => {
      if (!ended) child.stdin.write(line + '\n');
    };
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      const want = memsSeen + 1;
      type('.gc');
      type('.mem');
      const check = setInterval(() => {
        if (memsSeen >= want || Date.now() - t0 > o.seconds * 1000 + 5000) {
          clearInterval(check);
          child.kill('SIGKILL');
        }
      }, 50);
      timers.push(check);
    };
    child.stdin.on('error', () => undefined);
    // Complete lines only: a mark or a .mem answer may arrive in two pieces.
    let scanned = 0;
    const got: Mark[] = [];
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      if (o.onOutput) o.onOutput(d.toString('utf8'));
      const now = Date.now() - t0;
      const end = stdout.lastIndexOf('\n') + 1;
      if (end <= scanned) return;
      const fresh = stdout.slice(scanned, end);
      scanned = end;
      const marks = parseMarks(fresh, boot);
      if (marks.length && !got.length) for (const l of o.typed ?? []) timers.push(setTimeout(() => type(l.line), l.atMs));
      for (const m of marks) {
        got.push(m);
        markTimes.push(now);
      }
      for (let n = fresh.match(/occupied: \d+, peak: \d+/g)?.length ?? 0; n > 0; n--) memTimes.push(now);
      memsSeen = memTimes.length;
      if (!stopping && o.cutFirstBoot && got.length && o.cutFirstBoot(got)) {
        stopping = cut = true;
        child.kill('SIGKILL');
      }
      if (!stopping && o.until && got.length && o.until([...before, ...got], stdout)) stop();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    timers.push(setTimeout(stop, Math.max(0, o.seconds * 1000)));
    child.on('close', (code) => {
      ended = true;
      for (const t of timers) clearTimeout(t);
      resolve({ code, stdout, stderr, ms: Date.now() - t0, cut, startMs: t0, markTimes, memTimes });
    });
  });
}

function parseMarks(stdout: string, boot: number): Mark[] {
  return [...stdout.matchAll(MARK)].map((m): Mark => ({
    boot, t: +m[1]!, realMs: 0, used: +m[2]!, floor: +m[3]!, peak: +m[4]!, total: +m[5]!, writes: +m[6]!, records: +m[7]!, harm: +m[8]!,
  }));
}
