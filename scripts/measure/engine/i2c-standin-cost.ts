// What the bench's stand-in for Kaluma's 'i2c' module (i2c-standin.ts) costs
// on the device's heap beyond Kaluma's own module, so that the I2C figures of
// `npm run bench` (§7) can say the sensors' own share. Two programs run on
// the engine, alike but for the stand-in in front of the second: each
// requires 'i2c', opens bus 0 as the board's port does and writes one byte,
// then prints its post-GC live set.
//   npx tsx scripts/measure/engine/i2c-standin-cost.ts --engine PATH
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineMain, runEngine, verdict } from './lib';

// The live set right after a collection (heap-probe.ts's way: small garbage until heapUsed drops).
const BODY = `
function used(){return process.memoryUsage().heapUsed;}
function floor(){var last=used();for(var i=0;i<40000;i++){var g=[i,i];if(g[0]!==i)print('');var u=used();if(u<last)return u;last=u;}return -1;}
var I=require('i2c').I2C; var h=new I(0,{sda:4,scl:5,baudrate:100000}); h.n_=0;
try { h.write(new Uint8Array([0xd0]),0x76,50); } catch (e) {}
print('@LIVE ' + floor() + '\\n');
`;

engineMain('i2c-standin-cost', async (engine) => {
  const standIn = (await build({ entryPoints: ['scripts/measure/engine/i2c-standin.ts'], bundle: true, format: 'iife', target: 'es2019', minify: true, write: false })).outputFiles[0]!.text;
  const dir = mkdtempSync(join(tmpdir(), 'i2c-standin-'));
  try {
    const live: number[] = [];
    for (const [name, text] of [['kaluma.js', BODY], ['standin.js', standIn + BODY]] as const) {
      const file = join(dir, name);
      writeFileSync(file, text);
      const r = await runEngine(engine, file, { timeoutMs: 60000 });
      const m = /@LIVE (\d+)/.exec(r.stdout);
      if (!m) {
        console.log(`${name}: no figure (${verdict(r)})`);
        return false;
      }
      live.push(Number(m[1]));
    }
    const [k, s] = live as [number, number];
    console.log(`Kaluma's own i2c module in use: live ${k} B; the stand-in in use: live ${s} B; the stand-in costs ${s - k} B more`);
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
