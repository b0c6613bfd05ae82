// On the device's runtime built for the PC: the Kaluma file port against a
// full LittleFS, with Kaluma's own writeFile as the control. Not a CI test.
//
//   npx tsx scripts/measure/engine/fs-refusals.ts --engine PATH [--n 10000] [--control 2000]
//   KALUMA_ENGINE=PATH npx tsx scripts/measure/engine/fs-refusals.ts
//
// It bundles a small program around the real src/ports/kaluma/files.ts (as
// the device bundle is built), which fills the 512 KB file system through
// the port and then makes N writes and appends that the file system refuses,
// then the same refusals through Kaluma's writeFile. The C heap is not
// visible to JavaScript: at each marker the program waits in delay() while
// this script reads the engine process's VmData from /proc.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBundle } from '../../build/build';
import { arg, engineMain, runEngine, verdict } from './lib';

const PORT = fileURLToPath(new URL('../../../src/ports/kaluma/files.ts', import.meta.url));

/** The program run on the engine. Kaluma globals (print, delay) are the engine's. */
const program = (n: number, control: number): string => `
import { writeFile } from 'fs';
import { kalumaFiles as files } from ${JSON.stringify(PORT)};
declare function print(s: string): void;
declare function delay(ms: number): void;
declare const process: { memoryUsage(): { heapUsed: number } };

const mark = (label: string): void => {
  print('@MEM ' + label + ' heapUsed=' + process.memoryUsage().heapUsed + '\\n');
  delay(400);
};
const msg = (e: unknown): string => (e instanceof Error ? e.message : String(e));
/** Runs f n times; returns the error messages with their counts, and how many succeeded. */
function tally(n: number, f: (i: number) => void): string {
  const seen: Record<string, number> = {};
  let ok = 0;
  for (let i = 0; i < n; i++) {
    try {
      f(i);
      ok++;
    } catch (e) {
      seen[msg(e)] = (seen[msg(e)] || 0) + 1;
    }
  }
  return ok + ' succeeded, refused: ' + JSON.stringify(seen);
}

files.mkdir('q');
files.append('q/seg-1', new Uint8Array(2000));
files.write('cursor.json', new Uint8Array(40));
const big = new Uint8Array(8192);
let k = 0;
try {
  for (;;) files.write('fill' + k++, big);
} catch (e) {
  print('full after ' + (k - 1) + ' x 8 KB through the port: ' + msg(e) + '\\n');
}
try {
  for (k = 0; ; k++) files.write('small' + k, new Uint8Array(300));
} catch (e) {
  print('and ' + k + ' x 300 B: ' + msg(e) + '\\n');
}
const part = Math.floor(${n} / 4);
const chunk = new Uint8Array(600);
const frame = new Uint8Array(64);
mark('port-before');
print('port write new file:      ' + tally(part, () => files.write('cursor.json.tmp', chunk)) + '\\n');
print('port write existing file: ' + tally(part, () => files.write('cursor.json', chunk)) + '\\n');
print('port append existing:     ' + tally(part, () => files.append('q/seg-1', frame)) + '\\n');
print('port append new file:     ' + tally(${n} - 3 * part, (i) => files.append('q/seg-' + (2 + (i % 4)), frame)) + '\\n');
mark('port-after');
mark('control-before');
print('kaluma writeFile:         ' + tally(${control}, () => writeFile('/cursor.tmp', chunk)) + '\\n');
mark('control-after');
`;

interface Mark {
  label: string;
  vmDataKb: number;
  heapUsed: number;
}

function vmDataKb(pid: number): number {
  const m = /^VmData:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

async function report(engine: string): Promise<boolean> {
  const n = Number(arg('n') || 10000);
  const control = Number(arg('control') || 2000);
  const dir = mkdtempSync(join(tmpdir(), 'fs-refusals-'));
  try {
    const entry = join(dir, 'entry.ts');
    writeFileSync(entry, program(n, control));
    const built = await buildBundle({ entry, outfile: join(dir, 'fs-refusals.js') });
    console.log(`bundle ${built.bytes} B; ${n} refused writes and appends through the port, ${control} through Kaluma's writeFile`);

    const marks: Mark[] = [];
    const r = await runEngine(engine, built.outfile, {
      onLine(line, pid) {
        const m = /^@MEM (\S+) heapUsed=(\d+)/.exec(line);
        if (m) marks.push({ label: m[1]!, heapUsed: Number(m[2]), vmDataKb: vmDataKb(pid) });
        else console.log('  ' + line);
      },
    });
    if (r.stderr.trim()) console.log('engine stderr: ' + r.stderr.trim());
    console.log(verdict(r));

    const at = (label: string): Mark | undefined => marks.filter((m) => m.label === label)[0];
    const row = (what: string, ops: number, a: Mark | undefined, b: Mark | undefined): void => {
      if (!a || !b) return console.log(what + ': no figures (the program stopped early)');
      const d = b.vmDataKb - a.vmDataKb;
      console.log(
        `${what}: VmData ${a.vmDataKb} kB before, ${b.vmDataKb} kB after (${d >= 0 ? '+' : ''}${d} kB, ${Math.round((d * 1024) / ops)} B per call); ` +
          `JS heapUsed ${a.heapUsed} -> ${b.heapUsed} B`,
      );
    };
    row(`port, ${n} refused writes/appends`, n, at('port-before'), at('port-after'));
    row(`control, ${control} refused Kaluma writeFile`, control, at('control-before'), at('control-after'));
    return r.code === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

engineMain('fs-refusals', report);
