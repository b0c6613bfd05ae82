// The Kaluma timers port on the device's engine (see timers.entry.ts). Also
// run by test/engine/engine.test.ts when an engine is given.
//   npx tsx scripts/measure/engine/timers.ts --engine PATH   (or KALUMA_ENGINE=PATH)
import { pathToFileURL } from 'node:url';
import { buildProgram, engineMain, runEngine, verdict, type EngineRun } from './lib';

export interface TimersRun {
  run: EngineRun;
  verdict: string;
  /** The program's own lines (@COST, @ROUND, @DONE). */
  lines: string[];
  cost?: { perKalumaTimer: number; perPortTimer: number };
  done: boolean;
}

export async function runTimers(engine: string): Promise<TimersRun> {
  const prog = await buildProgram('scripts/measure/engine/timers.entry.ts', 'dist/engine/timers.js');
  const run = await runEngine(engine, prog.outfile, { timeoutMs: 120000 });
  const lines = run.stdout.split('\n').filter((x) => x.startsWith('@'));
  const cost = /@COST (.*)/.exec(run.stdout);
  return { run, verdict: verdict(run), lines, cost: cost ? (JSON.parse(cost[1]!) as TimersRun['cost']) : undefined, done: run.stdout.includes('@DONE') };
}

async function report(engine: string): Promise<boolean> {
  const r = await runTimers(engine);
  console.log(`${engine}: ${r.verdict}`);
  for (const l of r.lines) console.log('  ' + l);
  return r.done && r.run.code === 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) engineMain('timers', report);
