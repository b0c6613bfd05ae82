// What one HTTP write costs on the device's heap (see write-alloc.entry.ts):
// the stand-in for the driver alone, Kaluma's net.Socket over it, and the
// agent's HTTP client with the Kaluma ports, for a value write and a JSON one.
//   npx tsx scripts/measure/engine/write-alloc.ts --engine PATH [--base REV]
// With --base, the same program is also built from src/ of the git revision
// REV (the stand-in and the measuring code from this tree) and both are
// printed, before and after. An exchange's alloc figure is only counted
// when no collection can have run during it; on the Pico W's heap (a
// collection every 5,760 B of growth) an exchange that allocates more than
// about 4 KB is counted only on the 1 MB engine (every 8,192 B): 'n/a'.
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { arg, buildProgram, engineMain, runEngine, verdict } from './lib';
import { srcAt } from './revision';
import type { Figures } from './write-alloc.entry';


export interface WriteAllocResult {
  results: Record<string, Figures>;
  /** Highest heapUsed while the socket port writes a request, above heapUsed before it: value, json, batch. */
  peaks: Record<string, number>;
  mismatches: number;
  violations: string[];
  heapTotal: number;
  heapPeak: number;
  /** heapUsed at which collections run: every multiple of this. */
  step: number;
  readCost: number;
  valueBytes: number;
  jsonBytes: number;
  batchBytes: number;
}

export interface WriteAllocRun {
  verdict: string;
  result?: WriteAllocResult;
  stderr: string;
}

const ENTRY = 'scripts/measure/engine/write-alloc.entry.ts';

/** Builds the program from this tree, or from src/ at `base` with this tree's entry and stand-in. */
async function program(base: string | undefined): Promise<string> {
  if (!base) return (await buildProgram(ENTRY, 'dist/engine/write-alloc.js')).outfile;
  const dir = mkdtempSync(join(tmpdir(), 'write-alloc-'));
  try {
    srcAt(base, dir);
    mkdirSync(join(dir, 'scripts/measure/engine'), { recursive: true });
    cpSync(ENTRY, join(dir, ENTRY));
    // The entry's own imports beside it: the measuring code is this tree's.
    cpSync('scripts/measure/engine/heap-probe.ts', join(dir, 'scripts/measure/engine/heap-probe.ts'));
    cpSync('test/fakes/kaluma', join(dir, 'test/fakes/kaluma'), { recursive: true });
    return (await buildProgram(join(dir, ENTRY), 'dist/engine/write-alloc-base.js')).outfile;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runWriteAlloc(engine: string, base?: string): Promise<WriteAllocRun> {
  const run = await runEngine(engine, await program(base), { timeoutMs: 300000 });
  const line = /@RESULT (.*)/.exec(run.stdout);
  return { verdict: verdict(run), result: line ? (JSON.parse(line[1]!) as WriteAllocResult) : undefined, stderr: run.stderr };
}

const LEVELS = ['driver', 'socket', 'agent'];
const KINDS = ['value', 'json'];
/** A rise this close to a collection's step may have had a collection inside it. */
const NEAR = 1600;
let step = 0;
const allocOf = (f: Figures): string => (f.alloc < 0 ? 'n/a' : String(f.alloc) + (f.biggest > step - NEAR ? '?' : ''));

function table(r: WriteAllocResult, b: WriteAllocResult | undefined): string[] {
  step = r.step;
  const out: string[] = [];
  for (const kind of KINDS) {
    out.push(`${kind} write (${kind === 'value' ? r.valueBytes : r.jsonBytes} B request):`);
    for (const level of LEVELS) {
      const f = r.results[level + ' ' + kind]!;
      const was = b && b.results[level + ' ' + kind];
      const show = (v: (x: Figures) => string): string => (was ? `${v(was)} -> ${v(f)}` : v(f)).padStart(was ? 14 : 6);
      out.push(`  ${level.padEnd(7)} alloc ${show(allocOf)} B   live ${show((x) => String(x.live))} B   kept ${show((x) => String(x.kept))} B   (alloc from ${f.counted} rounds)`);
    }
    const mine = (x: WriteAllocResult): string => {
      const a = x.results['agent ' + kind]!;
      const s = x.results['socket ' + kind]!;
      return a.alloc < 0 || s.alloc < 0 ? 'n/a' : String(a.alloc - s.alloc);
    };
    out.push(`  agent minus socket (the client and the ports alone): alloc ${b ? mine(b) + ' -> ' : ''}${mine(r)} B, live ${b ? b.results['agent ' + kind]!.live - b.results['socket ' + kind]!.live + ' -> ' : ''}${r.results['agent ' + kind]!.live - r.results['socket ' + kind]!.live} B`);
  }
  return out;
}

async function report(engine: string): Promise<boolean> {
  const base = arg('base');
  const now = await runWriteAlloc(engine);
  const before = base ? await runWriteAlloc(engine, base) : undefined;
  console.log(`${engine}: ${now.verdict}${before ? ` (${base}: ${before.verdict})` : ''}`);
  if (!now.result || (before && !before.result)) {
    console.log('no result line; stderr:\n' + (now.stderr + (before ? before.stderr : '')).slice(-2000));
    return false;
  }
  console.log(`heapTotal ${now.result.heapTotal} B, a collection every ${now.result.step} B; medians per exchange${before ? `, ${base} -> this tree` : ''}; "driver" is the stand-in's own cost`);
  for (const l of table(now.result, before && before.result)) console.log(l);
  console.log(`  ?: a single step of that exchange came within ${NEAR} B of a collection's, which it may have hidden; the 1 MB engine's figure holds`);
  const b = before && before.result;
  const peak = (k: string): string => (b ? `${b.peaks[k]} -> ` : '') + `${now.result!.peaks[k]} B`;
  console.log(`peak while the socket port writes the request (above heapUsed before it): value ${peak('value')}, json ${peak('json')}, ${now.result.batchBytes} B batch ${peak('batch')}`);
  const bad = now.result.mismatches + now.result.violations.length;
  if (bad) console.log(`requests or replies not as expected: ${now.result.mismatches}; violations: ${JSON.stringify(now.result.violations)}`);
  return !bad;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) engineMain('write-alloc', report);
