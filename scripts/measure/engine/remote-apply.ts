// One document of the configuration device, applied on the device's engine:
// the reference configuration with remote.id set (device 12 of the bench's
// stand-in service, read every minute) finds a document that changes the
// sensors' period. Prints each boot's heapPeak and lowest post-collection
// floor, the lines the board said about it, and how long the way from the
// read to the agent running the new configuration took (real time on the
// engine, through qemu where it runs so: not a Pico W's time).
//   npx tsx scripts/measure/engine/remote-apply.ts --engine PATH [--seconds 300] [--pad B] [--same]
// --same: the document is the board's own configuration (what provision()
// writes first): the read that finds it changes nothing, with no checker.
import { toSaved } from '../../../src/config/saved';
import { referenceConfig } from '../bench/timer-ids';
import { runBoard } from './board';
import { arg, engineCommand, enginePath } from './lib';

async function main(): Promise<void> {
  const engine = enginePath();
  if (!engine) return console.log('remote-apply: no engine binary given (--engine PATH or KALUMA_ENGINE); skipped');
  const how = engineCommand(engine);
  if (typeof how === 'string') return console.log('remote-apply: ' + how + '; skipped');
  const cfg = referenceConfig();
  cfg.remote = { id: 12, pin: 12, pollMs: 60000 };
  const saved = toSaved(cfg) as Record<string, unknown>;
  // The document as provision() writes it: the saved form without wifi, service, remote.
  const doc: Record<string, unknown> = { ...saved };
  delete doc.wifi;
  delete doc.service;
  delete doc.remote;
  if (!process.argv.includes('--same')) doc.sensors = (saved.sensors as Record<string, unknown>[]).map((s) => ({ ...s, intervalMs: 2000 }));
  const seconds = Number(arg('seconds') || 300);
  const run = await runBoard(engine, {
    name: 'remote-apply',
    config: saved,
    remoteDoc: JSON.stringify(doc),
    seconds,
    periodMs: 500,
    pad: Number(arg('pad')) || undefined,
    // Once the agent has run 20 s on a boot after the document was settled.
    until: (marks, stdout) => /remote: document \w+( applied|: the running configuration already| refused)/.test(stdout) && marks.filter((m) => m.boot === marks[marks.length - 1]!.boot).length >= 40,
  });
  // The console's own escapes (erase line, colours) left out.
  const boots = run.run.stdout.split('\x1b[2K').join('').split('\x1b[0m').join('').split('\n@BOOT\n');
  if (process.argv.includes('--raw')) console.log(run.run.stdout + '\n--- stderr\n' + run.run.stderr);
  console.log(`remote-apply: ${engine}; ${run.boots} boots; ${run.verdict}; bundle ${run.bundleBytes} B`);
  for (let b = 0; b < boots.length; b++) {
    const ms = run.marks.filter((m) => m.boot === b);
    const floors = ms.map((m) => m.floor).filter((f) => f > 0);
    const said = boots[b]!.split('\n').filter((l) => /^(remote|config|agent|restart|cold)|checking/.test(l.trim()));
    console.log(`boot ${b + 1}: ${ms.length ? `${((ms[0]!.realMs) / 1000).toFixed(1)}-${(ms[ms.length - 1]!.realMs / 1000).toFixed(1)} s, heapPeak ${Math.max(...ms.map((m) => m.peak))} B, lowest floor ${floors.length ? Math.min(...floors) : 'none'} B` : 'no heap marks'}`);
    for (const l of said) console.log('    ' + l.trim());
  }
  const mem = run.mems[run.mems.length - 1];
  if (mem) console.log(`last boot's .gc/.mem: ${mem.occupied} B live, peak ${mem.peak} B; every figure includes the radio stand-in (npm run bench, §7 "stand-in alone")`);
  // From the boot that read it to the first heap mark of the boot after the one that settled it.
  const read = boots.findIndex((t) => /remote: document \w+/.test(t));
  if (read >= 0) {
    const last = run.marks.filter((m) => m.boot === read).pop();
    const settled = boots.findIndex((t, i) => i >= read && /remote: document \w+( applied|: the running configuration already| refused)/.test(t));
    const next = run.marks.find((m) => m.boot === settled + 1);
    if (last && next) console.log(`from the read's boot's last mark to the first mark of the boot after the one that settled it: ${((next.realMs - last.realMs) / 1000).toFixed(1)} s of real time (${settled - read + 1} restarts)`);
  }
}

void main();
