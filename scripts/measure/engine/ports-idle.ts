// The heap a board pays for the Kaluma ports when it has loaded them and
// used none (a board with no network configured), and what each first use
// then adds (the built-in module it requires, and what the port keeps), on
// the device's engine.
//   npx tsx scripts/measure/engine/ports-idle.ts --engine PATH [--base REV]
// With --base, the ports are also built from src/ of the git revision REV
// and both are printed, before and after.
//
// The program is written here (like fs-refusals.ts does) so that the host's
// type check never reads the ports against Node's modules, and runs after
// ports-idle.prelude.ts, a program of its own put in front of it as the
// board's firmware would be: stand-ins for the radio's module and drivers,
// made before anything is measured, so they weigh the same in every figure.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { arg, buildProgram, engineMain, runEngine, verdict } from './lib';
import { srcAt } from './revision';

export interface PortsIdleResult {
  /** heapUsed after a collection, the ports loaded and the platform made. */
  idle: number;
  /** What each first use added to it, in order. */
  after: Record<string, number>;
  total: number;
}

const program = (ports: string): string => `
import { createKalumaPlatform } from ${JSON.stringify(ports)};
import { floor, used } from ${JSON.stringify(resolve('scripts/measure/engine/heap-probe.ts'))};
declare function print(s: string): void;
declare const process: { memoryUsage(): { heapUsed: number } };

const p = createKalumaPlatform();
const idle = floor();
const h = { onConnect: () => undefined, onData: () => undefined, onClose: () => undefined };
const steps: [string, () => unknown][] = [
  ['clock.setWallMs (rtc)', () => p.clock.setWallMs(1e12)],
  ['kv.get (storage)', () => p.kv.get('k')],
  ['files.size (fs)', () => p.files.size('x')],
  ['pins.led (pico_cyw43)', () => p.pins.led().write(true)],
  ['wifi.isUp', () => p.wifi.isUp()],
  ['sockets.connect', () => p.sockets.connect('10.0.0.5', 80, h).destroy()],
];
const after: Record<string, number> = {};
let last = idle;
for (const [name, use] of steps) {
  use();
  const f = floor();
  after[name] = f - last;
  last = f;
}
print('@RESULT ' + JSON.stringify({ idle, after, total: last }) + '\\n');
`;

let prelude: Promise<string> | undefined;

/** Builds the program over the ports of this tree, or of src/ at `base`. */
async function build(base: string | undefined): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'ports-idle-'));
  try {
    let src = resolve('src');
    if (base) {
      src = srcAt(base, dir);
    }
    const entry = join(dir, 'entry.ts');
    writeFileSync(entry, program(join(src, 'ports/kaluma/index.ts')));
    prelude = prelude || buildProgram('scripts/measure/engine/ports-idle.prelude.ts', 'dist/engine/ports-idle-pre.js').then((r) => readFileSync(r.outfile, 'utf8'));
    const out = base ? 'dist/engine/ports-idle-base.js' : 'dist/engine/ports-idle.js';
    const tail = readFileSync((await buildProgram(entry, out)).outfile, 'utf8');
    writeFileSync(out, (await prelude) + '\n' + tail);
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runPortsIdle(engine: string, base?: string): Promise<{ verdict: string; result?: PortsIdleResult; stderr: string }> {
  const run = await runEngine(engine, await build(base), { timeoutMs: 60000 });
  const line = /@RESULT (.*)/.exec(run.stdout);
  return { verdict: verdict(run), result: line ? (JSON.parse(line[1]!) as PortsIdleResult) : undefined, stderr: run.stderr + run.stdout };
}

async function report(engine: string): Promise<boolean> {
  const base = arg('base');
  const now = await runPortsIdle(engine);
  const before = base ? await runPortsIdle(engine, base) : undefined;
  console.log(`${engine}: ${now.verdict}${before ? ` (${base}: ${before.verdict})` : ''}`);
  const r = now.result;
  const b = before && before.result;
  if (!r || (before && !b)) {
    console.log('no result line; output:\n' + (now.stderr + (before ? before.stderr : '')).slice(-2000));
    return false;
  }
  const show = (x: number, was: number | undefined): string => (was === undefined ? '' : `${was} -> `) + `${x} B`;
  console.log(`heapUsed after a collection, the ports loaded and none used${b ? ` (${base} -> this tree)` : ''}: ${show(r.idle, b && b.idle)}`);
  for (const k of Object.keys(r.after)) console.log(`  then ${k.padEnd(24)} +${show(r.after[k]!, b && b.after[k])}`);
  console.log(`  all used: ${show(r.total, b && b.total)}`);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) engineMain('ports-idle', report);
