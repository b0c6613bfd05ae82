// A simulated day of the agent as a benchmark (not a test: it prints figures).
//
//   npx tsx scripts/measure/soak.ts [--hours 24]
//
// One reading per second per sensor on the fake clock, the flash outbox over
// an in-memory file store, a scripted service that answers at once, a
// 10-minute service outage and a silent Wi-Fi drop every four hours (the run
// behind test/faults/day.test.ts, without keeping the records).

import { runDay } from '../../test/faults/day';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf('--' + name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error('--' + name + ' needs a positive number');
  return v;
}

const mb = (n: number): string => (n / 1048576).toFixed(1) + ' MB';
const kb = (n: number): string => (n / 1024).toFixed(1) + ' KB';

async function main(): Promise<void> {
  const hours = arg('hours', 24);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
  const before = process.memoryUsage();
  const started = Date.now();
  const f = await runDay({ hours });
  const wallMs = Date.now() - started;
  if (gc) gc();
  const after = process.memoryUsage();

  const rows: [string, string][] = [
    ['simulated duration', (f.simulatedMs / 3600000).toFixed(1) + ' h'],
    ['wall time', (wallMs / 1000).toFixed(1) + ' s'],
    ['readings produced', String(f.produced)],
    ['requests sent', String(f.requests)],
    ['  delivered records', String(f.delivered)],
    ['  retried requests', String(f.retries)],
    ['bytes sent', f.bytesSent + ' B (' + mb(f.bytesSent) + ')'],
    ['max outbox depth', f.maxDepth + ' records'],
    ['max outbox bytes', f.maxBytes + ' B of ' + f.boundBytes + ' B bound (' + kb(f.maxBytes) + ')'],
    ['max outbox on flash', f.maxFlashBytes + ' B'],
    ['dropped / left queued', f.dropped + ' / ' + f.endDepth],
    ['link ladder', Object.entries(f.link).map(([k, v]) => k + ' ' + v).join(', ')],
    ['host heap before', mb(before.heapUsed) + ' used, ' + mb(before.heapTotal) + ' total'],
    ['host heap after', mb(after.heapUsed) + ' used, ' + mb(after.heapTotal) + ' total'],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  console.log('Agent soak: ' + hours + ' simulated hours at 1 reading/s per sensor (3 devices)\n');
  for (const [k, v] of rows) console.log(k.padEnd(w) + '  ' + v);
  console.log(
    '\nHost heap is a stand-in for the device: it measures Node on this PC (V8, the test fakes, the' +
      '\nin-memory file store), not the Pico W\'s Kaluma heap; it only shows that nothing grows with' +
      '\nthe length of the run.' + (gc ? '' : ' Run with NODE_OPTIONS=--expose-gc for figures after a collection.'),
  );
  if (f.dropped || f.endDepth || f.delivered !== f.produced) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
