// The HTTP client and the Kaluma timers and socket ports through 1,000 bad
// exchanges on the device's engine (see http-faults.entry.ts). Not a CI test:
//   npx tsx scripts/engine/http-faults.ts --engine PATH   (or KALUMA_ENGINE=PATH)
// Prints the engine's verdict (exit code, fatal error), the outcomes, the
// heap floor per 100 exchanges and what the driver stand-in costs.
import { buildProgram, enginePath, runEngine, verdict } from './lib';

async function main(): Promise<void> {
  const engine = enginePath();
  if (!engine) {
    console.log('http-faults: no engine given (--engine PATH or KALUMA_ENGINE); skipped');
    return;
  }
  const prog = await buildProgram('scripts/engine/http-faults.entry.ts', 'dist/engine/http-faults.js');
  const r = await runEngine(engine, prog.outfile, { timeoutMs: 900000 });
  const line = /@RESULT (.*)/.exec(r.stdout);
  console.log(`program ${prog.bytes} B on ${engine}: ${verdict(r)} after ${(r.ms / 1000).toFixed(1)} s`);
  for (const w of r.stdout.split('\n').filter((l) => l.startsWith('@WINDOW') || l.startsWith('@START') || l.startsWith('@BATCH'))) console.log('  ' + w);
  if (!line) {
    console.log('no result line; stderr:\n' + r.stderr.slice(-2000));
    process.exitCode = 1;
    return;
  }
  const res = JSON.parse(line[1]!) as { floors: number[]; violations: string[] };
  console.log(JSON.stringify(res, null, 1));
  // The first 200 exchanges warm up (the driver's slots, the abandoned connections' records).
  const f = res.floors;
  const growth = f.length > 3 ? f[f.length - 1]! - f[2]! : 0;
  console.log(`heap floor (lowest heapUsed per 100 exchanges) from exchange 300 to ${f.length * 100}: ${growth >= 0 ? '+' : ''}${growth} B; violations recorded by the driver stand-in: ${res.violations.length}`);
  if (r.code !== 0 || res.violations.length) process.exitCode = 1;
}

void main();
