// What the I2C sensors cost on the device's heap, in parts: four runs of the
// device bundle on the engine, side by side, at one sample a second (the
// bench's §7 settings): the reference configuration; the same with the I2C
// stand-in in the program (i2c-standin.ts) but no I2C sensor; the same with
// one BME280 and one SHT4x configured but carried by no device (their
// configuration alone); and with them carried (the budget case).
// Each run's floor is the lowest post-collection probe of the second half of
// its last boot, its peak that boot's heapPeak. The sensors' own running
// heap is then: the configuration's share, plus the running share, less what
// the stand-in keeps while in use (its record of the open bus), plus what
// Kaluma's own module costs once required (neither is in the runs: the
// stand-in replaces it). Those two are measured here too, in a program of
// their own.
//   npx tsx scripts/measure/engine/i2c-cost.ts --engine PATH [--writes 120] [--pad 3264]
import { toSaved } from '../../../src/config/saved';
import { referenceConfig } from '../bench/timer-ids';
import { runBoard } from './board';
import type { BoardRun } from './board';
import { arg, engineMain, runEngine, verdict } from './lib';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Figures {
  floor: number;
  peak: number;
}

function figuresOf(r: BoardRun): Figures {
  const last = Math.max(...r.marks.map((m) => m.boot));
  const mine = r.marks.filter((m) => m.boot === last);
  const half = mine.slice(Math.floor(mine.length / 2)).filter((m) => m.floor > 0);
  return { floor: Math.min(...half.map((m) => m.floor)), peak: Math.max(...mine.map((m) => m.peak)) };
}

// The live set taken by CODE, as heap-probe.ts measures it; PRE makes what CODE
// fills beforehand (the globals it assigns), so only CODE's own objects count.
const LIVE = `function used(){return process.memoryUsage().heapUsed;}
function floor(){var last=used();for(var i=0;i<40000;i++){var g=[i,i];if(g[0]!==i)print('');var u=used();if(u<last)return u;last=u;}return -1;}
PRE;var a=floor();CODE;var b=floor();print('@DELTA '+(b-a)+'\\n');`;

/** heapUsed taken by `code` on the engine after `pre` ran, post-collection; NaN when the program gave no figure. */
async function delta(engine: string, pre: string, code: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'i2c-cost-'));
  try {
    const file = join(dir, 'p.js');
    writeFileSync(file, LIVE.replace('PRE', pre).replace('CODE', code));
    const r = await runEngine(engine, file, { timeoutMs: 60000 });
    const m = /@DELTA (-?\d+)/.exec(r.stdout);
    if (!m) console.log('no figure for ' + code + ' (' + verdict(r) + ')');
    return m ? Number(m[1]) : NaN;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

engineMain('i2c-cost', async (engine) => {
  const writes = Number(arg('writes')) || 120;
  const pad = Number(arg('pad')) || 3264;
  const run = async (name: string, o: { i2c?: boolean; carried?: boolean; standIn?: boolean }): Promise<Figures> => {
    const c = referenceConfig({ i2c: o.i2c });
    if (o.i2c && !o.carried) c.devices[1]!.sensors = c.devices[1]!.sensors.filter((n) => n !== 'air' && n !== 'leaf');
    const r = await runBoard(engine, {
      pad, name: 'i2c-cost-' + name, config: toSaved(c), periodMs: 2000, seconds: writes / 3 + 150, i2c: o.standIn,
      until: (ms) => ms.length > 0 && ms[ms.length - 1]!.writes >= writes,
    });
    if (r.died) throw new Error(name + ': the engine died (' + r.verdict + ')');
    return figuresOf(r);
  };
  const [ref, withStandIn] = await Promise.all([run('ref', {}), run('standin', { standIn: true })]);
  const [configured, carried] = await Promise.all([run('configured', { i2c: true, standIn: true }), run('carried', { i2c: true, carried: true, standIn: true })]);
  // Kaluma's own module once required, and the stand-in's record of an open bus (the options its port passes).
  // The stand-in's record: an element of its list of open buses (made empty at its load), the options object in it.
  const kaluma = await delta(engine, 'globalThis.k=0', "k=require('i2c')");
  const record = await delta(engine, 'globalThis.o=[]', 'o[0]={sda:4,scl:5,baudrate:100000}');
  const configShare = configured.floor - withStandIn.floor;
  const runShare = carried.floor - configured.floor;
  const own = configShare + runShare - record + kaluma;
  const row = (n: string, f: Figures): string => `${n.padEnd(44)} floor ${f.floor} B, peak ${f.peak} B`;
  console.log(`${writes} writes a run, ballast ${pad} B; floors: lowest post-collection probe of the second half of the last boot`);
  console.log(row('reference', ref));
  console.log(row('reference + the I2C stand-in (unused)', withStandIn));
  console.log(row('+ a BME280 and an SHT4x configured, not carried', configured));
  console.log(row('+ carried by the JSON device', carried));
  console.log(`the stand-in in the program: ${withStandIn.floor - ref.floor} B; Kaluma's own i2c module required: ${kaluma} B; the stand-in's record of the open bus: ${record} B`);
  console.log(`the sensors' own running heap: configuration ${configShare} B + running ${runShare} B - ${record} B + ${kaluma} B = ${own} B (budget 3,072 B)`);
  console.log(`peak: ${carried.peak} B vs ${ref.peak} B for the reference: ${carried.peak - ref.peak >= 0 ? '+' : ''}${carried.peak - ref.peak} B raw, with the stand-in in the program (${withStandIn.peak - ref.peak >= 0 ? '+' : ''}${withStandIn.peak - ref.peak} B without I2C sensors)`);
  return true;
});
