// What the outputs' code and state hold on the device's heap, in seconds
// rather than gc-trace's minutes: the same harness (fakes of the agent, its
// client and the pins; 40 reads (--reads N) every 5 s of program time, values changing
// and refused) built three times, without outputs, with one and with two,
// and run on the engine; each program's floor (heapUsed right after a
// collection) once the reads are done, against the one without.
//   npx tsx scripts/measure/engine/outputs-cost.ts --engine PATH [--reads N]
// The outputs' two cold modules are the device bundle's own (scripts/build/build.ts),
// evaluated as the loader evaluates them: 'outputs' once and kept, its
// strings in its code; 'output-read' for each read and let go, its strings
// from its table. Their text is a literal of every program here, the
// baseline's too, and so are the resident functions they use: the figure
// is the kept code, its strings and what the outputs keep, not the loader's
// cost (reading flash, the CRC, the shared table made per load). No radio
// stand-in: nothing here uses the network.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { buildBundle } from '../../build/build';
import { loadResidency, sharedRows } from '../../build/residency';
import { arg, engineMain, runEngine, verdict } from './lib';

interface Result { base: number; attached: number; end: number }

/** The shared table's rows (src/shared.ts, from src/residency.json): each module and its values' names. */
const LAYOUT = sharedRows(loadResidency()).map((r) => ({ key: r.path.replace(/\.ts$/, ''), names: r.names }));
/** The rows the harness fills: the modules the outputs read. */
const ROWS = ['service/client', 'service/parse'];
/** Reads each program makes (--reads N): a second figure with more reads shows that nothing grows with them. */
const READS = Number(arg('reads')) || 40;

/** The outputs' cold modules out of a device bundle: code, and the read's strings. */
async function modules(): Promise<Record<string, string>> {
  const b = await buildBundle({ outfile: 'dist/engine/outputs-cost-bundle.js' });
  const text = readFileSync(b.outfile, 'latin1');
  const get = (name: string): { code: string; strings: string } => {
    const m = b.cold.find((c) => c.name === name);
    if (!m) throw new Error(`the bundle has no cold module ${name}`);
    return { code: text.slice(m.offset, m.offset + m.codeBytes), strings: text.slice(m.offset + m.codeBytes + 1, m.offset + m.bytes) };
  };
  const kept = get('outputs');
  const read = get('output-read');
  const keys = LAYOUT.map((r) => r.key);
  const rows = ROWS.map((k) => keys.indexOf(k));
  for (const [, r] of (kept.code + read.code).matchAll(/__shared\[(\d+)\]/g)) {
    if (!rows.includes(Number(r))) throw new Error(`the outputs read shared row ${r} (${keys[Number(r)]}), which the harness does not fill: add it to ROWS`);
  }
  return { OUTPUTS_CODE: kept.code, READ_CODE: read.code, READ_STRINGS: read.strings || '[]' };
}

async function one(entry: string, out: string, engine: string, code: Record<string, string>, outputs = 0): Promise<Result | string> {
  const define: Record<string, string> = { OUTPUTS_N: String(outputs), READS: String(READS), SHARED_ROWS: JSON.stringify(LAYOUT) };
  for (const [k, v] of Object.entries(code)) define[k] = JSON.stringify(v);
  await build({ entryPoints: [entry], outfile: out, bundle: true, format: 'iife', platform: 'neutral', target: 'es2019', minify: true, charset: 'ascii', legalComments: 'none', logLevel: 'warning', define });
  const r = await runEngine(engine, out, { timeoutMs: 120000 });
  const m = /@RESULT (.*)/.exec(r.stdout);
  return m ? (JSON.parse(m[1] as string) as Result) : `${entry}: ${verdict(r)} ${r.stdout.slice(0, 300)} ${r.stderr.slice(0, 300)}`;
}

engineMain('outputs-cost', async (engine) => {
  const code = await modules();
  const entry = 'scripts/measure/engine/outputs-cost.entry.ts';
  const none = await one(entry, 'dist/engine/outputs-cost-none.js', engine, code, 0);
  const one1 = await one(entry, 'dist/engine/outputs-cost-1.js', engine, code, 1);
  const two = await one(entry, 'dist/engine/outputs-cost-2.js', engine, code, 2);
  for (const r of [none, one1, two]) if (typeof r === 'string') {
    console.log(r);
    return false;
  }
  const [n, a, b] = [none, one1, two] as Result[];
  console.log(`cold modules: outputs ${code['OUTPUTS_CODE']!.length} B (kept), output-read ${code['READ_CODE']!.length} B + ${code['READ_STRINGS']!.length} B of strings (per read)`);
  console.log(`floor without outputs: ${n!.end} B (at start ${n!.base} B)`);
  console.log(`one output:  +${a!.end - n!.end} B after ${READS} reads (attached, before any read: +${a!.attached - n!.attached} B)`);
  console.log(`two outputs: +${b!.end - n!.end} B after ${READS} reads`);
  return true;
});
