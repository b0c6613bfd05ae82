// When and why the device's engine collects garbage while the agent runs:
// the reference config on the Pico W's heap, with the engine's own counters
// read from outside, which no program can read (heapUsed is only part of it).
//   npx tsx scripts/measure/engine/gc-trace.ts --engine PATH [--seconds 90] [--skip 15]
//     [--pad BYTES] [--no-probe] [--dump FILE] [--no-config] [--health] [--outputs [1]] [--poll-ms N]
//     [--interval-ms N] [--remote [POLL_MS]]
// (--skip: seconds of each boot left out, its parse and start-up; --pad: the
// stand-in's ballast, as npm run bench -- --align prints it; --no-probe: the
// stand-in's marks skip their post-collection probe, which itself carries
// the count up to the next limit; --dump: every change of the counters in
// the agent's boot, as CSV, and its output by the ms it arrived in FILE.out;
// --no-config: the boot without a configuration, console only; --health:
// the reference config with a health report every minute; --outputs: two
// outputs read every 5 s; --interval-ms: the sensors sampled every N ms
// instead of every second, e.g. a quiet agent whose live set between
// requests is what a feature's permanent cost is told by; --remote: a
// configuration device read every POLL_MS, 60000 by default, whose document
// changes nothing, as after its first read.)
//
// JerryScript (the commit Kaluma 1.2.1 pins) collects when an allocation
// would take its own count of allocated bytes past a limit that moves in
// steps of heapTotal/32 (5,760 B on the Pico W), and then only if the
// objects made since the last collection are more than 1/16 of all there
// are; otherwise the limit goes up a step. Its count includes the 8 and 16 B
// chunks a collection freed into its pools (plain objects, scopes, numbers),
// which heapUsed leaves out and only a failed allocation gives back. So
// heapPeak is where the count met a limit, less the pools at that moment.
//
// The counters are read from the engine process's memory (/proc/PID/mem,
// Linux): its context's count of objects alive and made since the last
// collection, allocated size and limit, next to its heap stats (heapTotal,
// heapUsed, heapPeak, and what of heapUsed is bytecode, strings, objects and
// properties), found by their values. Reading them does not stop the
// engine. Where the memory cannot be read, the script says so in one line.
import { openSync, readFileSync, readSync, closeSync, writeFileSync } from 'node:fs';
import { toSaved } from '../../../src/config/saved';
import type { AgentConfig } from '../../../src/config/types';
import { referenceConfig } from '../bench/timer-ids';
import { runBoard } from './board';
import { arg, engineCommand, enginePath } from './lib';

interface Sample {
  /** ms since the engine process started. */
  at: number;
  allocated: number;
  limit: number;
  used: number;
  peak: number;
  /** Objects alive (garbage not yet collected included), and made since the last collection. */
  objects: number;
  fresh: number;
  /** Of heapUsed: bytecode, strings, objects, properties (the rest: arrays' storage, property hashmaps, numbers). */
  code: number;
  strings: number;
  objectBytes: number;
  props: number;
}

interface Where {
  /** Address of the context's allocated size (the limit follows it). */
  ctx: number;
  /** Address of the stats' allocated bytes (heapUsed; heapPeak follows). */
  stats: number;
  total: number;
  step: number;
}

/** The counters' addresses in process pid, or undefined while they cannot be told apart yet. */
function locate(pid: number): Where | undefined {
  const maps = readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n');
  const fd = openSync(`/proc/${pid}/mem`, 'r');
  try {
    for (const line of maps) {
      const m = /^([0-9a-f]+)-([0-9a-f]+) rw/.exec(line);
      if (!m) continue;
      const from = parseInt(m[1]!, 16);
      const size = parseInt(m[2]!, 16) - from;
      if (size > 8 << 20) continue;
      const buf = Buffer.alloc(size);
      try {
        readSync(fd, buf, 0, size, from);
      } catch {
        continue;
      }
      const n = size >> 2;
      const w = (i: number): number => buf.readUInt32LE(i << 2);
      for (let i = 16; i + 2 < n; i++) {
        const total = w(i);
        // heap_stats: size, allocated, peak; the heap is a whole number of KB less one 8 B header.
        if (total < 65536 || total > 4 << 20 || (total + 8) % 1024) continue;
        const used = w(i + 1);
        const peak = w(i + 2);
        if (!used || used > total || peak < used || peak > total) continue;
        const step = (total + 8) / 32;
        for (let j = i - 16; j < i; j++) {
          const a = w(j);
          const l = w(j + 1);
          if (l % step === 0 && a < l && l <= a + step && Math.abs(a - used) < 32768) return { ctx: from + 4 * j, stats: from + 4 * (i + 1), total, step };
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return undefined;
}

/**
 * --health: the reference config reporting its health every minute to a
 * device of its own (the stand-in takes any write). --outputs: two outputs
 * read at the shortest poll (5 s; --poll-ms N: every N ms, 60000 being
 * the default of a config), a relay on a Value device (id 8) and a vent's
 * PWM on a JSON device's field (id 9), whose stored values the stand-in
 * changes at every read.
 */
function withHealth(c: AgentConfig): AgentConfig {
  if (process.argv.includes('--health')) c.health = { id: 9, pin: 9, intervalMs: 60000 };
  if (process.argv.includes('--outputs')) {
    // `--outputs 1`: the relay alone.
    const one = arg('outputs') === '1';
    const pollMs = Number(arg('poll-ms')) || 5000;
    c.outputs = [
      { name: 'relay', kind: 'digital', pin: 16, sourceId: 8, sourcePin: 8, field: '', pollMs, safe: 0, failsafeMs: 600000, invert: false },
      { name: 'vent', kind: 'pwm', pin: 18, sourceId: 10, sourcePin: 10, field: 'vent', pollMs, safe: 0, failsafeMs: 600000, freqHz: 1000, scale: 100 },
    ].slice(0, one ? 1 : 2) as AgentConfig['outputs'];
  }
  // The stand-in holds '{}' on device 12: each read finds nothing to change, with no checker.
  if (process.argv.includes('--remote')) c.remote = { id: 12, pin: 12, pollMs: Number(arg('remote')) || 60000 };
  return c;
}

function median(v: number[]): number {
  return pct(v, 50);
}

/** The p-th percentile (nearest rank below) of v. */
function pct(v: number[], p: number): number {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.floor(((s.length - 1) * p) / 100)]! : NaN;
}

async function main(): Promise<void> {
  const engine = enginePath();
  if (!engine) {
    console.log('gc-trace: no engine binary given (--engine PATH or KALUMA_ENGINE); skipped');
    return;
  }
  const how = engineCommand(engine);
  if (typeof how === 'string') {
    console.log('gc-trace: ' + how + '; skipped');
    return;
  }
  if (process.platform !== 'linux') {
    console.log('gc-trace: reads the engine process through /proc (Linux only); skipped');
    return;
  }
  const seconds = Number(arg('seconds') || 90);
  const skipMs = Number(arg('skip') || 15) * 1000;
  let spawnedAt = 0;
  // Samples of the boot that runs the agent (the first boot checks the config and restarts).
  let samples: Sample[] = [];
  // The agent's boot's output, by ms since its engine started (for --dump).
  let out: [number, string][] = [];
  let where: Where | undefined;
  let problem = '';
  let pid = 0;
  let done = false;
  // The counters are looked for at most every 250 ms (a search reads the process's writable memory).
  let lookedAt = 0;
  const sampler = (): void => {
    if (done) return;
    if (pid) {
      try {
        if (!where) {
          if (Date.now() - lookedAt >= 250) {
            lookedAt = Date.now();
            where = locate(pid);
          }
        } else {
          const fd = openSync(`/proc/${pid}/mem`, 'r');
          // The context: objects alive, made since the last collection, allocated, limit.
          const b = Buffer.alloc(16);
          // The heap stats from heapUsed on: used, peak, waste x2, bytecode x2, strings x2, objects x2, properties.
          const h = Buffer.alloc(44);
          try {
            for (let k = 0; k < 2000; k++) {
              readSync(fd, b, 0, 16, where.ctx - 8);
              const allocated = b.readUInt32LE(8);
              const limit = b.readUInt32LE(12);
              readSync(fd, h, 0, 44, where.stats);
              const s: Sample = {
                at: Date.now() - spawnedAt, allocated, limit, used: h.readUInt32LE(0), peak: h.readUInt32LE(4),
                objects: b.readUInt32LE(0), fresh: b.readUInt32LE(4),
                code: h.readUInt32LE(16), strings: h.readUInt32LE(24), objectBytes: h.readUInt32LE(32), props: h.readUInt32LE(40),
              };
              // No heap in use: the engine tearing down as the process
              // ends (a restart), not a state the program was in.
              if (!s.used) continue;
              const last = samples[samples.length - 1];
              if (!last || last.allocated !== s.allocated || last.limit !== s.limit || last.used !== s.used) samples.push(s);
            }
          } finally {
            closeSync(fd);
          }
        }
      } catch (e) {
        // The process ended (a restart) or cannot be read.
        if (!problem && !String(e).includes('ENOENT') && !String(e).includes('ESRCH') && !String(e).includes('EIO')) problem = String(e);
      }
    }
    setImmediate(sampler);
  };
  setImmediate(sampler);
  const run = await runBoard(engine, {
    name: 'gc-trace',
    config: process.argv.includes('--no-config') ? undefined : toSaved(withHealth(referenceConfig({ intervalMs: Number(arg('interval-ms')) || undefined }))),
    periodMs: 2000,
    seconds,
    pad: Number(arg('pad')) || undefined,
    probe: !process.argv.includes('--no-probe'),
    onOutput: (text) => {
      if (spawnedAt) out.push([Date.now() - spawnedAt, text]);
    },
    onSpawn: (p) => {
      pid = p;
      out = [];
      spawnedAt = Date.now();
      where = undefined;
      lookedAt = 0;
      samples = [];
    },
  });
  done = true;
  if (!where || samples.length < 2) {
    console.log('gc-trace: the engine\'s counters could not be read' + (problem ? ' (' + problem + ')' : '') + '; nothing to show');
    return;
  }
  const w = where;
  const boot = samples.filter((s) => s.at < skipMs);
  const bootPeak = boot.length ? boot[boot.length - 1]!.peak : 0;
  const dump = arg('dump');
  if (dump) {
    writeFileSync(dump, 'ms,allocated,limit,used,peak,objects,fresh\n' + samples.map((x) => [x.at, x.allocated, x.limit, x.used, x.peak, x.objects, x.fresh].join(',')).join('\n') + '\n');
    writeFileSync(dump + '.out', out.map(([ms, t]) => t.split('\n').filter((l) => l.trim()).map((l) => ms + ' ' + l).join('\n')).join('\n') + '\n');
  }
  // When heapPeak reached its highest, and what the count and limit were then.
  const top = samples.reduce((m, x) => (x.peak > m.peak ? x : m), samples[0]!);
  const topAt = samples.find((x) => x.peak === top.peak)!;
  samples = samples.filter((s) => s.at >= skipMs);
  if (samples.length < 2) {
    console.log(`gc-trace: nothing sampled after the first ${skipMs / 1000} s of the boot; run longer`);
    return;
  }
  // The limit is always a whole number of steps.
  const steps = (b: number): number => Math.round(b / w.step);
  const collections: { before: Sample; after: Sample }[] = [];
  const raised = new Map<number, number>();
  const freshAtRaise: number[] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    // A collection frees far more than any single free: the count drops by over 1 KB at once.
    if (b.allocated < a.allocated - 1024) collections.push({ before: a, after: b });
    else if (b.limit > a.limit) {
      raised.set(steps(b.limit), (raised.get(steps(b.limit)) ?? 0) + 1);
      freshAtRaise.push(b.fresh);
    }
  }
  const count = (f: (c: { before: Sample; after: Sample }) => number): string => {
    const m = new Map<number, number>();
    for (const c of collections) m.set(f(c), (m.get(f(c)) ?? 0) + 1);
    return [...m].sort((x, y) => x[0] - y[0]).map(([k, v]) => `${k} steps ×${v}`).join(', ');
  };
  const after = collections.map((c) => c.after);
  // The process may have ended between reads: the highest heapPeak read, not the last.
  const peak = samples.reduce((m, x) => (x.peak > m ? x.peak : m), 0);
  const marks = run.marks.filter((m) => m.boot === Math.max(...run.marks.map((x) => x.boot)));
  const end = marks[marks.length - 1];
  console.log(`gc-trace: reference config for ${seconds} s of real time on ${engine} (heap ${w.total} B; the limit moves in steps of ${w.step} B: "N steps" is a limit of N × ${w.step} B); ${end ? end.writes : '?'} writes; ${samples.length} changes of the counters sampled after the boot's first ${skipMs / 1000} s (heapPeak by then ${bootPeak} B)`);
  console.log(`collections: ${collections.length}; the limit they ran at: ${count((c) => steps(c.before.limit))}`);
  console.log(`the limit raised a step with no collection (too few new objects), to: ${[...raised].sort((x, y) => x[0] - y[0]).map(([k, v]) => `${k} steps ×${v}`).join(', ') || 'never'}`);
  console.log(`right after a collection: the engine's count median ${median(after.map((s) => s.allocated))} B, max ${Math.max(...after.map((s) => s.allocated))} B; heapUsed median ${median(after.map((s) => s.used))} B; in the pools (the count less heapUsed) median ${median(after.map((s) => s.allocated - s.used))} B, max ${Math.max(...after.map((s) => s.allocated - s.used))} B; the limit then: ${count((c) => steps(c.after.limit))}`);
  // What heapUsed is made of: at the lowest count after a collection, and at the highest heapUsed.
  const made = (x: Sample): string =>
    `heapUsed ${x.used} B = bytecode ${x.code} + strings ${x.strings} + objects ${x.objectBytes} (${x.objects} alive) + properties ${x.props} + the rest ${x.used - x.code - x.strings - x.objectBytes - x.props} (arrays' storage, property hashmaps, numbers)`;
  const lowest = after.reduce((m, x) => (x.allocated < m.allocated ? x : m), after[0]!);
  const highest = samples.reduce((m, x) => (x.used > m.used ? x : m), samples[0]!);
  console.log(`objects alive right after a collection: median ${median(after.map((s) => s.objects))} (a collection at a limit needs 1/16 of them made since the last); made since the last when a limit went up without one: median ${median(freshAtRaise)}`);
  if (lowest) console.log(`lowest count after a collection: ${made(lowest)}`);
  // The live set with the least in flight: a feature's cost is best told by
  // these, which one quiet moment (the lowest) or the busy ones (the median) sway.
  const used = after.map((s) => s.used);
  console.log(`heapUsed right after a collection: lowest ${Math.min(...used)} B, 10th percentile ${pct(used, 10)} B, 25th ${pct(used, 25)} B, median ${pct(used, 50)} B (${used.length} collections)`);
  console.log(`highest heapUsed: ${made(highest)}, ${(highest.at / 1000).toFixed(1)} s after the engine started`);
  console.log(`heapPeak reached its highest ${(topAt.at / 1000).toFixed(1)} s after the engine started (${topAt.at < skipMs ? 'in the boot' : 'in the loop'}), the engine's count then ${topAt.allocated} B against a limit of ${steps(topAt.limit)} steps`);
  console.log(`heapPeak ${peak} B raw (${(peak / w.step).toFixed(2)} steps); every figure here includes the radio stand-in (its live set: npm run bench, §7 "stand-in alone")`);
}

void main();
