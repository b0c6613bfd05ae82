// The unmodified device bundle on the device's engine, behind a stand-in for
// the radio driver (board.entry.ts). Not a CI test; used by the bench.
import { readFileSync, writeFileSync } from 'node:fs';
import { buildBundle } from '../build';
import { buildProgram, runEngine, verdict, type EngineRun } from './lib';

export interface BoardRun {
  run: EngineRun;
  verdict: string;
  /** heapUsed / heapPeak at each period mark, and writes answered so far. */
  marks: { t: number; used: number; floor: number; peak: number; writes: number }[];
  standInBytes: number;
  harm: number;
  bundleBytes: number;
}

export async function runBoard(engine: string, o: { config?: object; seconds: number; periodMs?: number; apDownMs?: [number, number]; bundle?: string }): Promise<BoardRun> {
  const bundle = o.bundle ? { outfile: o.bundle, bytes: readFileSync(o.bundle).length } : await buildBundle({ outfile: 'dist/engine/agent.js' });
  const pre = await buildProgram('scripts/engine/board.entry.ts', 'dist/engine/board-pre.js');
  const bench = { config: o.config ? JSON.stringify(o.config) : undefined, ssid: 'greenhouse-north', periodMs: o.periodMs ?? 1000, apDownMs: o.apDownMs, hosts: { 'data.example.net': '10.0.0.5' } };
  const file = 'dist/engine/board.js';
  writeFileSync(file, 'var __BENCH = ' + JSON.stringify(bench) + ';\n' + readFileSync(pre.outfile, 'utf8') + '\n' + readFileSync(bundle.outfile, 'utf8'));
  const run = await runEngine(engine, file, { timeoutMs: o.seconds * 1000 });
  const marks = [...run.stdout.matchAll(/@HEAP t=(\d+) used=(\d+) floor=(\d+) peak=(\d+) writes=(\d+) standIn=(\d+) harm=(\d+)/g)].map((m) => ({ t: +m[1]!, used: +m[2]!, floor: +m[3]!, peak: +m[4]!, writes: +m[5]! }));
  const last = /standIn=(\d+) harm=(\d+)\n[^@]*$/.exec(run.stdout) || /standIn=(\d+) harm=(\d+)/.exec(run.stdout);
  return { run, verdict: run.code === null ? 'running when stopped' : verdict(run), marks, standInBytes: last ? +last[1]! : 0, harm: last ? +last[2]! : 0, bundleBytes: bundle.bytes };
}
