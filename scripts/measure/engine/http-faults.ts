// The HTTP client and the Kaluma timers and socket ports through 1,000 bad
// exchanges on the device's engine (see http-faults.entry.ts). Also run by
// test/engine/engine.test.ts when an engine is given.
//   npx tsx scripts/measure/engine/http-faults.ts --engine PATH   (or KALUMA_ENGINE=PATH)
// Prints the engine's verdict (exit code, fatal error), the outcomes, the
// heap floor per 100 exchanges and what the driver stand-in costs.
import { pathToFileURL } from 'node:url';
import { buildProgram, engineMain, runEngine, verdict, type EngineRun } from './lib';

export interface HttpFaultsResult {
  exchanges: number;
  outcomes: Record<string, number>;
  /** Lowest heapUsed per 100 exchanges. */
  floors: number[];
  heapPeak: number;
  violations: string[];
  /** Late FINs that closed a placeholder of the socket port (harmless), and placeholders held at the end. */
  placeholderFins?: number;
  placeholdersHeld?: number;
  driverWrites: number;
  largestDriverWrite: number;
}

export interface HttpFaultsRun {
  run: EngineRun;
  verdict: string;
  /** The program's own lines (@START, @BATCH, @WINDOW). */
  lines: string[];
  result?: HttpFaultsResult;
  /** Floor at the last window minus the floor at exchange 300 (after warm-up). */
  floorGrowth?: number;
}

export async function runHttpFaults(engine: string): Promise<HttpFaultsRun> {
  const prog = await buildProgram('scripts/measure/engine/http-faults.entry.ts', 'dist/engine/http-faults.js');
  const run = await runEngine(engine, prog.outfile, { timeoutMs: 900000 });
  const line = /@RESULT (.*)/.exec(run.stdout);
  const lines = run.stdout.split('\n').filter((l) => /^@(START|BATCH|WINDOW)/.test(l));
  if (!line) return { run, verdict: verdict(run), lines };
  const result = JSON.parse(line[1]!) as HttpFaultsResult;
  const f = result.floors;
  return { run, verdict: verdict(run), lines, result, floorGrowth: f.length > 3 ? f[f.length - 1]! - f[2]! : undefined };
}

async function report(engine: string): Promise<boolean> {
  const r = await runHttpFaults(engine);
  console.log(`${engine}: ${r.verdict} after ${(r.run.ms / 1000).toFixed(1)} s`);
  for (const l of r.lines) console.log('  ' + l);
  if (!r.result) {
    console.log('no result line; stderr:\n' + r.run.stderr.slice(-2000));
    return false;
  }
  console.log(JSON.stringify(r.result, null, 1));
  // The first 200 exchanges warm up (the driver's slots, the abandoned connections' records).
  console.log(`heap floor (lowest heapUsed per 100 exchanges) from exchange 300 to ${r.result.floors.length * 100}: ${r.floorGrowth! >= 0 ? '+' : ''}${r.floorGrowth} B; violations recorded by the driver stand-in: ${r.result.violations.length}`);
  return r.run.code === 0 && !r.result.violations.length;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) engineMain('http-faults', report);
