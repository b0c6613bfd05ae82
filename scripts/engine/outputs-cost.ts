// What the outputs' code and state hold on the device's heap, in seconds
// rather than gc-trace's minutes: the same harness (fakes of the agent, its
// client and the pins; 40 reads every 5 s of program time, values changing
// and refused) built three times, without outputs, with one and with two,
// and run on the engine; each program's floor (heapUsed right after a
// collection) once the reads are done, against the one without.
//   npx tsx scripts/engine/outputs-cost.ts --engine PATH
// The outputs' code is parsed with the program here (on a board it comes
// from its cold module, its strings from a table): the figure is its
// bytecode, its strings and what the outputs keep, not the loader's cost.
// No radio stand-in: nothing here uses the network.
import { build } from 'esbuild';
import { engineMain, runEngine, verdict } from './lib';

interface Result { base: number; attached: number; end: number }

async function one(entry: string, out: string, engine: string, outputs = 0): Promise<Result | string> {
  // As the device bundle is built (scripts/build.ts), without its cold
  // section: the outputs' module is cold code, which the bundle's build
  // refuses to import into a resident program.
  await build({ entryPoints: [entry], outfile: out, bundle: true, format: 'iife', platform: 'neutral', target: 'es2019', minify: true, charset: 'ascii', legalComments: 'none', logLevel: 'warning', define: { OUTPUTS_N: String(outputs) } });
  const file = out;
  const r = await runEngine(engine, file, { timeoutMs: 120000 });
  const m = /@RESULT (.*)/.exec(r.stdout);
  return m ? (JSON.parse(m[1] as string) as Result) : `${entry}: ${verdict(r)} ${r.stderr.slice(0, 300)}`;
}

engineMain('outputs-cost', async (engine) => {
  const none = await one('scripts/engine/outputs-cost.none.entry.ts', 'dist/engine/outputs-cost-none.js', engine);
  const one1 = await one('scripts/engine/outputs-cost.entry.ts', 'dist/engine/outputs-cost-1.js', engine, 1);
  const two = await one('scripts/engine/outputs-cost.entry.ts', 'dist/engine/outputs-cost-2.js', engine, 2);
  for (const r of [none, one1, two]) if (typeof r === 'string') {
    console.log(r);
    return false;
  }
  const [n, a, b] = [none, one1, two] as Result[];
  console.log(`floor without outputs: ${n!.end} B (at start ${n!.base} B)`);
  console.log(`one output:  +${a!.end - n!.end} B after 40 reads (code and strings parsed: +${a!.base - n!.base} B; attached, before any read: +${a!.attached - n!.attached} B)`);
  console.log(`two outputs: +${b!.end - n!.end} B after 40 reads`);
  return true;
});
