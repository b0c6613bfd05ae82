// The Kaluma system port's collection and its guard on the device's engine
// (see collect.entry.ts). Also run by test/engine/engine.test.ts when an
// engine is given.
//   npx tsx scripts/measure/engine/collect.ts --engine PATH   (or KALUMA_ENGINE=PATH)
import { pathToFileURL } from 'node:url';
import { buildProgram, engineMain, runEngine, verdict, type EngineRun } from './lib';

export interface CollectRun {
  run: EngineRun;
  verdict: string;
  collect?: { live: number; before: number; after: number; peakBefore: number; peakAfter: number };
  /** How far bulky garbage carried heapUsed above the live set, without and with the guard. */
  guard?: { step: number; without: number; withGuard: number };
}

export async function runCollect(engine: string): Promise<CollectRun> {
  const prog = await buildProgram('scripts/measure/engine/collect.entry.ts', 'dist/engine/collect.js');
  const run = await runEngine(engine, prog.outfile, { timeoutMs: 60000 });
  const c = /@COLLECT (.*)/.exec(run.stdout);
  const g = /@GUARD (.*)/.exec(run.stdout);
  return {
    run,
    verdict: verdict(run),
    collect: c ? (JSON.parse(c[1]!) as CollectRun['collect']) : undefined,
    guard: g ? (JSON.parse(g[1]!) as CollectRun['guard']) : undefined,
  };
}

async function report(engine: string): Promise<boolean> {
  const r = await runCollect(engine);
  console.log(`${engine}: ${r.verdict}`);
  if (r.collect) console.log(`  collect(): heapUsed ${r.collect.before} -> ${r.collect.after} B (live ${r.collect.live} B), heapPeak ${r.collect.peakBefore} -> ${r.collect.peakAfter} B`);
  if (r.guard) console.log(`  bulky garbage above the live set: ${r.guard.without} B without the guard, ${r.guard.withGuard} B with it (a step is ${r.guard.step} B)`);
  return r.run.code === 0 && !!r.collect && !!r.guard;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) engineMain('collect', report);
