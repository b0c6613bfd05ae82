// The Kaluma timers port on the device's engine (see timers.entry.ts):
//   npx tsx scripts/engine/timers.ts --engine PATH   (or KALUMA_ENGINE=PATH)
import { buildProgram, enginePath, runEngine, verdict } from './lib';

async function main(): Promise<void> {
  const engine = enginePath();
  if (!engine) {
    console.log('timers: no engine given (--engine PATH or KALUMA_ENGINE); skipped');
    return;
  }
  const prog = await buildProgram('scripts/engine/timers.entry.ts', 'dist/engine/timers.js');
  // The program's 200 Kaluma timers wait an hour: stop it once it is done.
  const r = await runEngine(engine, prog.outfile, { timeoutMs: 120000 });
  console.log(`program ${prog.bytes} B: ${verdict(r)}`);
  for (const l of r.stdout.split('\n').filter((x) => x.startsWith('@'))) console.log('  ' + l);
  if (!r.stdout.includes('@DONE') || /fatal/.test(r.stderr)) process.exitCode = 1;
}

void main();
