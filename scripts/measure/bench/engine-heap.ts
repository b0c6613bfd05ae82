// `npm run bench -- --engine PATH` §7: the running agent's heap, measured on the
// device's runtime built for the PC (Kaluma 1.2.1's JerryScript with the
// Pico W's 184,312 B heap) running the unmodified device bundle behind the
// radio stand-in of scripts/measure/engine/board.entry.ts. The binary is never part of
// this repository: its path comes from --engine PATH or KALUMA_ENGINE, and
// without one the section is one row saying so.
//
// What does not fit the Pico W's heap (ERR_OUT_OF_MEMORY) runs again on a
// 1 MB heap build (--engine-big PATH, or kaluma-heap1024 beside the given
// binary): "what it costs before it fits". There a collection runs every
// ~32 KB of growth instead of every ~5.7 KB, so peaks carry up to ~26 KB more
// garbage than they would on 184 KB; floors are exact on both (taken right
// after a collection).
//
// Flags: --writes N (default 540: under 3 min at 3 writes a second; 10000 for
// the long run of docs/heap-history.md, about 56 min); --align (the stand-in padded to a
// whole number of the engine's collection steps, so that the agent meets
// the engine's limits where a board's count would: see engineHeap).
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { toSaved } from '../../../src/config/saved';
import { runBoard, type BoardOptions, type BoardRun, type Mark } from '../engine/board';
import { engineCommand, enginePath } from '../engine/lib';
import { referenceConfig } from './timer-ids';

type Row = [string, string, string, string];

const PICO_HEAP = 184312;
const DEFAULT_WRITES = 540;
/** The drain scenario: a 1 h outage at 1 s sampling, with the program's clock this many times faster. */
const DRAIN_SPEED = 60;
const OUTAGE_MS = 3600000;

const kb = (b: number): string => (b / 1024).toFixed(1) + ' KB';
const share = (b: number): string => ((b / PICO_HEAP) * 100).toFixed(0) + ' %';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function bigEngine(engine: string): string | undefined {
  const given = flag('--engine-big') ?? process.env['KALUMA_ENGINE_BIG'];
  if (given) return existsSync(given) ? given : undefined;
  const beside = join(dirname(engine), 'kaluma-heap1024');
  return beside !== engine && existsSync(beside) ? beside : undefined;
}

/** The engine as a row names it: file and heap. */
function engineName(r: BoardRun): string {
  const total = r.mems[0]?.total ?? r.marks[0]?.total;
  return basename(r.engine) + (total ? ` (heap ${total} B)` : '');
}

const minFloor = (ms: Mark[]): number => {
  const f = ms.map((m) => m.floor).filter((x) => x > 0);
  return f.length ? Math.min(...f) : NaN;
};

/** The last `.mem` answer of the REPL (after its `.gc`): its exact live set. */
const lastMem = (r: BoardRun): { occupied: number; peak: number } | undefined => r.mems[r.mems.length - 1];

/** Where a run that died got to. */
function death(r: BoardRun): string {
  const m = r.marks[r.marks.length - 1];
  return `${r.verdict} on ${engineName(r)} after ${(r.run.ms / 1000).toFixed(1)} s` + (m ? ` (last mark: ${m.writes} writes, heapUsed ${m.used} B, peak ${m.peak} B)` : ' (before the first heap mark)');
}

interface Fitted {
  r: BoardRun;
  /** The run on the Pico W heap that died, when the figures come from the big heap. */
  failed?: BoardRun;
  note: string;
}

/** Runs on the given engine; on a fatal error there, again on the big one. */
async function fit(engine: string, big: string | undefined, o: BoardOptions): Promise<Fitted> {
  const r = await runBoard(engine, o);
  if (!r.died) return { r, note: '' };
  if (!big) return { r, failed: r, note: `does not fit: ${death(r)}; no 1 MB build given (--engine-big PATH), so no figures` };
  const r2 = await runBoard(big, o);
  return {
    r: r2,
    failed: r,
    note: `does NOT fit the Pico W heap (stand-in included): ${death(r)}; figures from ${engineName(r2)}, what it costs before it fits (a collection every ~32 KB there, every ~5.7 KB on the Pico W: its peaks carry up to ~26 KB more garbage)`,
  };
}

/** raw / minus the stand-in's live set, and the share of the Pico W heap of the latter. */
const both = (raw: number, s: number): string => `${kb(raw)} raw, ${kb(raw - s)} minus stand-in (${share(raw - s)})`;

/**
 * A peak, and where it ends among the engine's collection steps on the Pico
 * W's heap. The limit that brings a collection on is always the next
 * multiple of the step above heapUsed; the step is the heap's configured
 * size / 32, at most 8 KB (the configured size is heapTotal + 8: the
 * engine's heap header), 5,760 B on the Pico W. A collection runs at a
 * limit only once the objects made since the last one are 1/16 of all
 * there are, so a peak ends just under a whole number of steps.
 */
const peakOf = (raw: number, s: number): string => `${both(raw, s)}, ${(raw / GC_STEP).toFixed(1)} steps of ${GC_STEP} B`;
const GC_STEP = Math.min(Math.floor((PICO_HEAP + 8) / 32), 8192);
/** --align: the stand-in padded to a whole number of collection steps (see engineHeap). */
const ALIGN = process.argv.includes('--align');

export async function engineHeap(): Promise<Row[]> {
  const engine = enginePath();
  const how = engine ? engineCommand(engine) : '';
  if (typeof how === 'string' && engine) return [['7', 'engine heap (the heap issue\'s table)', 'skipped', how]];
  if (!engine) {
    const given = process.argv.indexOf('--engine') >= 0 || process.env['KALUMA_ENGINE'];
    return [[
      '7',
      'engine heap (the heap issue\'s table)',
      'skipped',
      (given ? 'the engine path given does not exist' : 'no engine given') +
        ": npm run bench -- --engine PATH (or KALUMA_ENGINE=PATH) to the device's runtime built for the PC (Kaluma 1.2.1, the Pico W's 184,312 B heap); it runs the unmodified bundle in real time, about 3 min",
    ]];
  }
  const big = bigEngine(engine);
  const nWrites = Math.max(30, Number(flag('--writes')) || DEFAULT_WRITES);
  const ref = toSaved(referenceConfig());
  const rows: Row[] = [];
  const row = (measure: string, result: string, basis: string): number => rows.push(['7', measure, result, basis]);

  // 1. Kaluma's own start-up, then the stand-in with an empty bundle.
  const bare = await runBoard(engine, { name: 'board-bare', bare: true, seconds: 20, until: (ms) => ms.length >= 2 });
  let alone = await runBoard(engine, { name: 'board-alone', bundle: '', periodMs: 500, seconds: 20, until: (ms) => ms.length >= 6 });
  const k = lastMem(bare);
  let a = lastMem(alone);
  let S = k && a ? a.occupied - k.occupied : NaN;
  // --align: ballast makes the stand-in's live set a whole number of the
  // engine's collection steps. The engine collects only where its count of
  // allocated bytes crosses a multiple of the step, and the board's count
  // has no stand-in in it: with the stand-in's 18.9 KB in (3.3 steps), the
  // agent met every limit 0.3 step (1.6 KB) earlier than on a board, so a
  // peak fell on limits a board never has. The ballast's size is found by
  // measuring (its typed array's own header included).
  let pad = 0;
  let alignNote = '';
  if (ALIGN && k && a) {
    const target = Math.ceil(S / GC_STEP) * GC_STEP;
    for (let i = 0, guess = target - S - 48; i < 3 && guess > 0; i++) {
      const t = await runBoard(engine, { name: 'board-alone', bundle: '', periodMs: 500, seconds: 20, until: (ms) => ms.length >= 6, pad: guess });
      const ta = lastMem(t);
      if (!ta) break;
      const got = ta.occupied - k.occupied;
      if (got === target) {
        alignNote = `; --align: ballast of ${guess} B in the stand-in makes it ${got} B (${got / GC_STEP} steps of ${GC_STEP} B; ${S} B without it), so the agent meets the engine's collection limits where a board's count would (a board's driver objects, native, are left out: a few hundred bytes at most)`;
        pad = guess;
        alone = t;
        a = ta;
        S = got;
        break;
      }
      guess += target - got;
    }
    // Three tries that miss leave the runs as they were: a near miss would still shift the grid.
    if (!pad) alignNote = '; --align: the ballast could not be fitted in three tries, figures as without it';
  }
  const standInNote = `stand-in = ${S} B live (the radio driver's JS model, its service and the heap marks${pad ? ', its ballast' : ''}), subtracted as "minus stand-in"`;
  // Row 3 runs side by side with the others: it is the long one and mostly idle.
  const steadyP = fit(engine, big, {
    pad,
    name: 'board-steady',
    config: ref,
    periodMs: 2000,
    seconds: nWrites / 3 + 150,
    // The first boot checks the config.json flash.sh wrote (cold code), keeps
    // the result and restarts into the agent; every later boot reads it.
    until: (ms) => ms[ms.length - 1]!.writes >= nWrites,
  });

  // The same, with one BME280 and one SHT4x carried by the JSON device (the I2C issue's budget case).
  const i2cP = fit(engine, big, {
    pad,
    name: 'board-i2c',
    config: toSaved(referenceConfig({ i2c: true })),
    periodMs: 2000,
    seconds: nWrites / 3 + 150,
    until: (ms) => ms[ms.length - 1]!.writes >= nWrites,
  });

  row(
    'stand-in alone (empty bundle)',
    `live ${a ? a.occupied : '?'} B, peak ${a ? a.peak : '?'} B raw; minus Kaluma's own start-up (live ${k ? k.occupied : '?'} B, peak ${k ? k.peak : '?'} B): stand-in live ${S} B, peak +${a && k ? a.peak - k.peak : '?'} B`,
    `${engineName(alone)}; live = the REPL's .gc then .mem (the stand-in's own post-GC probe: ${minFloor(alone.marks.slice(1))} B); Kaluma alone = a program of one timer; every row below includes the stand-in, plus its per-request garbage (the request text copied 2-3 times, the reply) that no figure subtracts${alignNote}`,
  );

  // 2. Boot, no configuration.
  const boot = await fit(engine, big, { pad, name: 'board-boot', periodMs: 1000, seconds: 30, until: (ms) => ms.length >= 5 });
  {
    const r = boot.r;
    const m = lastMem(r);
    const probe = minFloor(r.marks.slice(1));
    row(
      'boot, no configuration: live once the console is up / peak while parsed and booted',
      m ? `live ${both(m.occupied, S)}; peak ${peakOf(m.peak, S)}` : 'no figure: ' + death(r),
      `${boot.note || engineName(r)}; bundle ${r.bundleBytes} B, no /config.json; live = .gc/.mem 5 s after start (probe floor ${probe} B); peak = heapPeak, reached while the program is parsed and booted; ${standInNote}`,
    );
  }

  // 4. Drain of a 1 h backlog: JSON device, batch 20.
  const drainCfg = toSaved({ ...referenceConfig(), devices: [{ ...referenceConfig().devices[1]!, batch: 20 }] });
  const upAt = 10000;
  const drain = await fit(engine, big, {
    pad,
    name: 'board-drain',
    config: drainCfg,
    periodMs: 1000,
    speed: DRAIN_SPEED,
    apDownMs: [upAt, upAt + OUTAGE_MS],
    drainBatch: 20,
    seconds: (upAt + OUTAGE_MS) / DRAIN_SPEED / 1000 + 90,
    until: (ms, out) => {
      const d = out.indexOf('@DRAINED');
      return d >= 0 && (out.slice(d).match(/@HEAP /g)?.length ?? 0) >= 3;
    },
  });
  {
    const r = drain.r;
    const out = r.run.stdout;
    const back = out.indexOf('@APBACK');
    const backBoot = back >= 0 ? (out.slice(0, back).match(/\n@BOOT\n/g) ?? []).length : -1;
    const same = r.marks.filter((m) => m.boot === backBoot);
    const before = same.filter((m) => markAt(out, r.marks.indexOf(m)) < back);
    const pBefore = before.length ? before[before.length - 1]!.peak : NaN;
    const end = r.marks[r.marks.length - 1];
    const q = /@APBACK t=\d+ records=(-?\d+) bytes=(\d+) dropped=(\d+)/.exec(out);
    const dr = /@DRAINED t=(\d+) writes=(\d+) records=(\d+)/.exec(out);
    const tBack = /@APBACK t=(\d+)/.exec(out);
    const allBefore = r.marks.filter((_, i) => markAt(out, i) < back);
    const lastBefore = allBefore[allBefore.length - 1];
    const recsBack = lastBefore ? lastBefore.records : 0;
    const writesBack = lastBefore ? lastBefore.writes : 0;
    const m = lastMem(r);
    // The first mark of every other boot: what a boot alone peaks at.
    const otherBoots = r.marks.filter((x, i) => x.boot !== backBoot && (i === 0 || r.marks[i - 1]!.boot !== x.boot));
    const bootAlone = otherBoots.length ? Math.max(...otherBoots.map((x) => x.peak)) : NaN;
    // A reset during the drain (the stand-in's clock runs fast, so a slow
    // step of the real CPU can look like a stalled sampler to the health
    // check): the drain's boot peaked at its last mark at the latest.
    const lastOfBack = same[same.length - 1];
    const resetAt = out.slice(back).match(/watchdog: not feeding \(([^)]*)\)/);
    const peak = !end || end.boot !== backBoot
      ? lastOfBack
        ? `${peakOf(lastOfBack.peak, S)} (the drain's boot, until a reset${resetAt ? ' by the health check: ' + resetAt[1] : ''}; the next boot finished the drain)`
        : 'no figure (a reset during the drain)'
      : before.length
        ? end.peak > pBefore ? `${peakOf(end.peak, S)} (heapPeak rose from ${kb(pBefore)})` : `≤ ${peakOf(pBefore, S)} (heapPeak did not rise during the drain)`
        : `${peakOf(end.peak, S)} (heapPeak of a boot that began as the AP came back; a boot alone peaks at ${kb(bootAlone)})`;
    const floorBefore = minFloor(allBefore.slice(-5));
    const result = !end || back < 0
      ? 'no figure: ' + (r.died ? death(r) : 'the outage did not end in time')
      : `peak during the drain ${peak}; ` +
        `backlog ${q ? q[1] + ' records (' + q[2] + ' B queued, ' + q[3] + ' dropped)' : '?'}; ` +
        (dr && tBack ? `drained by ${+dr[2]! - writesBack} writes carrying ${+dr[3]! - recsBack} records` : 'NOT drained when stopped') +
        `; live afterwards ${m ? both(m.occupied, S) : '?'} (post-GC floor before the AP came back ${kb(floorBefore)} raw)`;
    row(
      'drain of a 1 h backlog, JSON device batch 20',
      result,
      `${drain.note || engineName(r)}; the reference sensors (3 every 1 s) and only the JSON device with batch 20 (records of several devices interleave in the outbox and a batch takes consecutive ones, so with all three devices every write carries 1); ` +
        `AP invisible for 1 h of program clock, which runs ${DRAIN_SPEED}× real time (millis() scaled in the stand-in; every program timer reads it) so the outage takes ${OUTAGE_MS / DRAIN_SPEED / 1000} s, and at real time from the AP's return (a board drains while sampling at 1×); ` +
        `the agent rebooted itself ${r.boots - 1} time(s) during the outage (link supervision; watchdog reset, the same program restarted on the same flash, outbox kept); backlog = what the outbox's files hold (cursor and segment sizes, read by the stand-in) when the agent first sees the AP again (status() there would load a cold module into the drain's figure); ` +
        `harm ${end ? end.harm : '?'}; ${standInNote}`,
    );
  }

  // 5. Console session, typed at the REPL of a running agent.
  const session = [
    'help()', "help('keys')", 'config()',
    "set('wifi.password', 'another-pass-16')", "set('agent.backoffBaseMs', 3000)", "set('agent.requestTimeoutMs', 10000)",
    "set('sensor.temp.offsetC', 0.5)", "set('device.tj.decimals', 3)",
    'save()', 'test()', "provision('me@example.com', 'account-pass', 'bench4', 'JSON')",
  ];
  const startMs = 12000;
  const gapMs = 1500;
  const endMs = startMs + session.length * gapMs + 8000;
  const cons = await fit(engine, big, {
    pad,
    name: 'board-console',
    config: ref,
    periodMs: 1000,
    // The session is typed on the boot after the first, which checked
    // flash.sh's config.json and restarted (row 3).
    typedOnBoot: 2,
    seconds: endMs / 1000 + 40,
    typed: [{ atMs: startMs - 2000, line: '.gc' }, { atMs: startMs - 2000, line: '.mem' }, ...session.map((line, i) => ({ atMs: startMs + i * gapMs, line }))],
    until: (ms) => ms.filter((m) => m.boot === 1).length >= endMs / 1000 + 1,
  });
  {
    const r = cons.r;
    const out = r.run.stdout;
    const marks = r.marks.filter((m) => m.boot === 1);
    const first = marks[0]?.realMs ?? 0;
    const pre = marks.filter((m) => m.realMs - first < startMs - 100 && m.realMs - first > 3000);
    const post = marks.filter((m) => m.realMs - first > startMs + session.length * gapMs + 3000);
    const peakBefore = pre.length ? pre[pre.length - 1]!.peak : NaN;
    const end = marks[marks.length - 1];
    const mBefore = r.mems[0];
    const mAfter = r.mems.length > 1 ? r.mems[r.mems.length - 1] : undefined;
    // A command's own lines ("test: ...") and its refusals ("provision(): ...").
    const said = (cmd: string): string[] => (out.match(new RegExp(cmd + '(?:\\(\\))?: [^\\r\\n]*', 'g')) ?? []).map((l) => l.trim());
    const test = said('test').filter((l) => !/: writing /.test(l)).pop() ?? 'test(): no answer';
    const prov = said('provision').filter((l) => !/: creating /.test(l))[0] ?? 'provision(): no answer';
    const result = !end || !mAfter || !mBefore
      ? 'no figure: ' + (r.died ? death(r) : 'the session did not finish')
      : (end.peak > peakBefore ? `peak ${peakOf(end.peak, S)} (heapPeak rose from ${kb(peakBefore)} in the session)` : `peak ≤ ${peakOf(peakBefore, S)} (heapPeak, boot and running included, did not rise in the session)`) + '; ' +
        `live after ${mAfter.occupied} B vs ${mBefore.occupied} B running before (${mAfter.occupied - mBefore.occupied >= 0 ? '+' : ''}${mAfter.occupied - mBefore.occupied} B); probe floor after ${minFloor(post)} B vs ${minFloor(pre)} B before; ` +
        `${(out.match(/not enough free heap now/g) ?? []).length} command(s) refused for heap; save() ${/saved; agent /.test(out) ? 'saved' : 'did NOT save'}`;
    row(
      'console session: help(), help(\'keys\'), config(), five set(), save(), test(), provision()',
      result,
      `${cons.note || engineName(r)}; reference config running; lines typed at Kaluma's REPL ${gapMs / 1000} s apart from ${startMs / 1000} s: ${session.slice(3, 8).join(', ')}; "live" = .gc/.mem before the session and ${(endMs - startMs - session.length * gapMs) / 1000}+ s after the last line; ` +
        `answers: "${test.trim()}", "${prov.trim()}" (the stand-in service answers generateapikey with {"APIKey":…} and createuserdevice with {"DeviceID":4,"DevicePIN":4444}; the provisioned device stays unsaved, as the command leaves it); ${standInNote}`,
    );
  }

  // 6. The same kind of session on a board without an agent (no configuration,
  // or after maintenance()): where the big commands have their room.
  const quiet = [
    'help()', "help('keys')", 'config()',
    "set('wifi.ssid', 'greenhouse-north')", "set('wifi.password', 'another-pass-16')", "set('service.url', 'http://data.example.net/v1')",
    "set('sensor.temp.kind', 'temperature')", "set('agent.backoffBaseMs', 3000)",
    'save()', 'status()',
  ];
  const qEnd = startMs + quiet.length * gapMs + 8000;
  const idle = await fit(engine, big, {
    pad,
    name: 'board-console-idle',
    periodMs: 1000,
    seconds: qEnd / 1000 + 40,
    typed: [{ atMs: startMs - 2000, line: '.gc' }, { atMs: startMs - 2000, line: '.mem' }, ...quiet.map((line, i) => ({ atMs: startMs + i * gapMs, line }))],
    until: (ms) => ms.length >= qEnd / 1000 + 1,
  });
  {
    const r = idle.r;
    const first = r.marks[0]?.realMs ?? 0;
    const pre = r.marks.filter((m) => m.realMs - first < startMs - 100 && m.realMs - first > 3000);
    const end = r.marks[r.marks.length - 1];
    const mBefore = r.mems[0];
    const mAfter = r.mems.length > 1 ? r.mems[r.mems.length - 1] : undefined;
    const refused = (r.run.stdout.match(/not enough free heap now/g) ?? []).length;
    const saved = /saved; agent /.test(r.run.stdout);
    const peakBefore = pre.length ? pre[pre.length - 1]!.peak : NaN;
    row(
      'console session without an agent: help(), help(\'keys\'), config(), five set(), save(), status()',
      !end || !mAfter || !mBefore
        ? 'no figure: ' + (r.died ? death(r) : 'the session did not finish')
        : `peak ${peakOf(Math.max(end.peak, peakBefore), S)}; live after ${mAfter.occupied} B vs ${mBefore.occupied} B before (${mAfter.occupied - mBefore.occupied >= 0 ? '+' : ''}${mAfter.occupied - mBefore.occupied} B); ${refused} command(s) refused for heap; save() ${saved ? 'saved' : 'did NOT save'}`,
      `${idle.note || engineName(r)}; no /config.json (as after maintenance() the agent does not run); lines typed at Kaluma's REPL ${gapMs / 1000} s apart from ${startMs / 1000} s; ${standInNote}`,
    );
  }

  // 3. Reference config, sampling every 1 s, N writes.
  const steady = await steadyP;
  {
    const r = steady.r;
    const first = r.marks.filter((x) => x.boot === 0);
    const firstPeak = first.length ? first[first.length - 1]!.peak : NaN;
    const ms = r.marks.filter((x) => x.boot > 0);
    const end = ms[ms.length - 1];
    const N = end ? end.writes : 0;
    const after10 = ms.filter((m) => m.writes >= N * 0.1);
    const win = after10.filter((m) => m.writes < N * 0.2);
    const at10 = minFloor(win.length ? win : after10.slice(0, 1));
    const at50 = minFloor(ms.filter((m) => m.writes >= N * 0.5 && m.writes < N * 0.6));
    const at100 = minFloor(ms.filter((m) => m.writes >= N * 0.9));
    const bootPeak = ms[0]?.peak ?? NaN;
    const m = lastMem(r);
    const result = !end
      ? 'no figure: ' + death(r)
: `peak ${peakOf(end.peak, S)}${end.peak > bootPeak ? '' : ' (= the boot peak: the loop stayed below it)'}; first boot after flash.sh --config (checks the config.json with cold code, then restarts into the agent): peak ${peakOf(firstPeak, S)}; post-GC floor ${at10} B at 10 % → ${at50} B at 50 % → ${at100} B at 100 %: growth ${at100 - at10 >= 0 ? '+' : ''}${at100 - at10} B over ${N} writes; live at the end ${m ? both(m.occupied, S) : '?'}`;
    row(
      `reference config, sampling every 1,000 ms, ${nWrites} writes`,
      result,
      `${steady.note || engineName(r)}; 3 sensors (temp, soil median:5 two-point, door) every 1 s, Value/JSON/XML devices; the first boot checks flash.sh's config.json and restarts, then ${N} writes answered in ${((end?.realMs ?? 0) / 1000).toFixed(0)} s of real time (--writes 10000 for the issue's figure, ~56 min); floor = lowest post-GC probe over the marks at 10-20 %, 50-60 % and 90-100 % of the writes (a mark every 2 s); live = .gc/.mem at the end${r.boots > 2 ? `; ${r.boots - 2} watchdog reset(s)` : ''}; boot peak ${kb(bootPeak)}; harm ${end ? end.harm : '?'}; ${standInNote}`,
    );
  }
  // 4. The same with two I2C sensors: what they cost beside it.
  {
    const r = (await i2cP).r;
    const ms = r.marks.filter((x) => x.boot > 0);
    const end = ms[ms.length - 1];
    const N = end ? end.writes : 0;
    const floorOf = (run: BoardRun): number => {
      const xs = run.marks.filter((x) => x.boot > 0);
      const n = xs.length ? xs[xs.length - 1]!.writes : 0;
      return minFloor(xs.filter((m) => m.writes >= n * 0.5));
    };
    const peakOfRun = (run: BoardRun): number => {
      const xs = run.marks.filter((x) => x.boot > 0);
      return xs.length ? xs[xs.length - 1]!.peak : NaN;
    };
    const f = floorOf(r);
    const f0 = floorOf(steady.r);
    const p = peakOfRun(r);
    const p0 = peakOfRun(steady.r);
    const sign = (x: number): string => (x >= 0 ? '+' : '') + x;
    row(
      'reference config + one BME280 and one SHT4x (every 1 s, in the JSON device)',
      !end ? 'no figure: ' + death(r) : `post-GC floor ${f} B vs ${f0} B without (${sign(f - f0)} B of heap taken, budget 3 KB); peak ${peakOf(p, S)} vs ${kb(p0)} without (${sign(p - p0)} B, budget +3 KB)`,
      `${(await i2cP).note || engineName(r)}; ${N} writes; floors = lowest post-GC probe over the marks of the second half of each run; the I2C stand-in (scripts/measure/engine/i2c-standin.ts: Kaluma's i2c module's JS model answering as a BME280 at 0x76 and an SHT4x at 0x44) is in this run only: its own live set, 1,664 B more than Kaluma's own module in use (docs/measurements/2026-11-29-i2c.md), is inside the figure, so the sensors' own cost is that much less; ${standInNote}`,
    );
  }
  // In the table's order: stand-in, boot, reference configuration, I2C, drain, the two console sessions.
  return [rows[0]!, rows[1]!, rows[5]!, rows[6]!, rows[2]!, rows[3]!, rows[4]!];
}

/** Index in stdout of the i-th heap mark. */
function markAt(out: string, i: number): number {
  let at = -1;
  for (let n = 0; n <= i; n++) at = out.indexOf('@HEAP', at + 1);
  return at;
}
