// `npm run bench`: what the device pays, as one markdown table (not a test).
//   1. bundle size, the largest modules, the heap its bytecode takes
//   2. bytes on the wire per write against the smallest request the spec allows
//   3. requests per reading with JSON batching while a backlog drains
//   4. host CPU and allocation per sample -> encode -> send cycle
//   5. a simulated day at the default period, radio always on and duty-cycled
// Every assumption is stated in the row it shapes.
import { RADIO_OFF_MIN_INTERVAL_MS } from '../../src/agent/agent';
import { createHttpClient } from '../../src/net/http';
import type { SocketFactory } from '../../src/ports/ports';
import { createServiceClient } from '../../src/service/client';
import { createFakeWriter } from '../../test/fakes/writer';
import { buildBundle } from '../build/build';
import { benchConfig, startAgent } from './bench/sim';
import { allocPerOp, getGc } from './bench/alloc';
import { API_KEY, BASE, READING_TEXT, REPLY_BYTES, VALUE_TEXT, bodyFor, idleTimers, measureWire } from './bench/wire';
import { timerIdRate } from './bench/timer-ids';
import { engineHeap } from './bench/engine-heap';
import { records } from './bench/records';

/** Heap bytes per byte of minified program parsed, measured on the device's engine build (53,709 B of resident program: 75,728 B of heap, 2026-11-24). */
const HEAP_PER_BUNDLE_BYTE = 1.4;
const HEAP_BYTES = 180 * 1024;
const TOP_MODULES = 10;

// Radio model: assumptions, not measurements (this host has no radio).
/** Active radio time per request on a LAN: TCP connect, request, reply, close (about 4 round trips at 5 ms) plus the power-save wake-up. */
const REQUEST_MS = 40;
/** Effective PHY rate for the bytes themselves. */
const PHY_BITS_PER_MS = 20000;
/** A join from radio off (scan, association, DHCP): typically 2 to 4 s on this class of device. */
const JOIN_MS = 3000;
const JOIN_MS_LOW = 2000;
const JOIN_MS_HIGH = 4000;
/** Radio current while active, and the average while associated and idle in power-save mode. */
const ACTIVE_MA = 100;
const IDLE_MA = 1.5;

const DAY_MS = 24 * 3600000;
const DEFAULT_INTERVAL_MS = 60000;

type Row = [string, string, string, string];

const kb = (b: number): string => (b / 1024).toFixed(1) + ' KB';
const pct = (a: number, b: number): string => ((a / b) * 100).toFixed(1) + ' %';

async function bundle(): Promise<Row[]> {
  const r = await buildBundle({ outfile: 'dist/bench-agent.js' });
  // Only the resident program is parsed at boot; its bytecode stays on the heap.
  const heap = r.residentBytes * HEAP_PER_BUNDLE_BYTE;
  const rows: Row[] = [
    ['1', 'device bundle, minified', `${r.bytes} B (${r.budgetBytes ? pct(r.bytes, r.budgetBytes) + ' of the ' + r.budgetBytes + ' B pico-w budget' : 'no budget'})`, 'esbuild, es2019, minified, as scripts/build/build.ts builds it: one file, the cold section in front of the resident program'],
    ['1', '  resident program (parsed at boot)', `${r.residentBytes} B` + (r.residentBudgetBytes ? ` (${pct(r.residentBytes, r.residentBudgetBytes)} of the ${r.residentBudgetBytes} B pico-w budget)` : ''), 'an IIFE; everything the steady loop needs (the agent\'s own modules as one part), and the console stubs and cold loader'],
    ['1', '  cold code (never parsed at boot)', `${r.coldBytes} B: ` + r.cold.map((c) => `${c.name} ${c.bytes} B`).join(', '), 'a leading comment; a command reads its module back from flash, runs it and lets it go (src/cold.ts); build ' + r.build],
    ['1', 'heap taken by the resident bytecode (estimate)', `≈ ${kb(heap)} of ${kb(HEAP_BYTES)} (${pct(heap, HEAP_BYTES)})`, `estimate: × ${HEAP_PER_BUNDLE_BYTE} heap B per resident B, measured on the device's engine build (§7 has the measured figures)`],
  ];
  for (const i of r.inputs.slice(0, TOP_MODULES)) rows.push(['1', '  ' + i.path, `${i.bytes} B (${pct(i.bytes, r.residentBytes)})`, 'metafile bytesInOutput, resident program']);
  for (const part of r.parts) {
    rows.push(['1', `  part '${part.name}' of the resident program`, `${part.bytes} B (${pct(part.bytes, r.residentBytes)})`, 'a function of the resident program (src/parts.ts): parsed at boot, let go (its bytecode freed) by a boot that does not run the agent']);
    for (const i of part.inputs.slice(0, 5)) rows.push(['1', '    ' + i.path, `${i.bytes} B`, `metafile bytesInOutput, part '${part.name}'`]);
  }
  return rows;
}

async function wire(): Promise<Row[]> {
  const rows = await measureWire();
  return rows.map((w): Row => {
    const extra = w.extra.length ? '; beyond it: ' + w.extra.map((e) => `"${e.line}" ${e.bytes} B`).join(', ') : '; nothing beyond it';
    return [
      '2',
      `${w.format} write, bytes on the wire`,
      `${w.sent} B sent / ${w.minimal} B minimal = ${w.ratio.toFixed(3)}`,
      (w.format === 'Value'
        ? `GET, Data segment ${VALUE_TEXT}`
        : `POST, ${w.payload} B body from the encoder for ${READING_TEXT}, ts stamped at send`) +
        `; ${BASE}, 32-char key, id 12, pin 4821; captured socket writes; minimal = request line + Host` +
        (w.format === 'Value' ? '' : ' + Content-Length + the same body (assumption: the spec needs no Content-Type)') +
        extra,
    ];
  });
}

/** Runs `f` with Math.random seeded, so the backoff jitter and the figures repeat from run to run. */
async function seeded<T>(seed: number, f: () => Promise<T>): Promise<T> {
  const real = Math.random;
  let x = seed >>> 0;
  Math.random = () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 4294967296;
  };
  try {
    return await f();
  } finally {
    Math.random = real;
  }
}

async function batching(): Promise<Row[]> {
  const json = (await measureWire()).find((w) => w.format === 'JSON')!;
  const headBytes = json.sent - json.payload;
  const rows: Row[] = [];
  for (const n of [1, 5, 20]) rows.push(await seeded(42, () => drain(n, headBytes)));
  return rows;
}

async function drain(n: number, headBytes: number): Promise<Row> {
  let down = true;
  let firstOkMs = -1;
  const fw = createFakeWriter(() => {
    if (down) return { kind: 'retry', reason: 'service down', bytesSent: 0 };
    if (firstOkMs < 0) firstOkMs = sim.time.now();
    return { kind: 'ok', status: 200, bytesSent: 0 };
  });
  const c = benchConfig(DEFAULT_INTERVAL_MS);
  c.devices = [{ ...c.devices[1]!, batch: n }];
  const sim = startAgent(c, fw.writer);
  await sim.advance(3600000);
  const failed = fw.writes.length;
  const backlog = sim.agent.queue.stats().depth;
  down = false;
  const upMs = sim.time.now();
  const w0 = fw.writes.length;
  const d0 = sim.agent.uplink.stats().delivered;
  while (sim.agent.queue.stats().depth > 0 && sim.time.now() - upMs < 1800000) await sim.advance(1000);
  const emptyMs = sim.time.now();
  const drainReq = fw.writes.length - w0;
  let wire = 0;
  for (const w of fw.writes.slice(w0)) wire += headBytes + Buffer.byteLength(w.body, 'utf8');
  const drained = sim.agent.uplink.stats().delivered - d0;
  // Steady state afterwards: one hour with the service up.
  const w1 = fw.writes.length;
  const d1 = sim.agent.uplink.stats().delivered;
  await sim.advance(3600000);
  const liveReq = fw.writes.length - w1;
  const live = sim.agent.uplink.stats().delivered - d1;
  sim.agent.stop();
  return [
    '3',
    `JSON batch ${n}${n === 1 ? ' (batching off)' : ''}: requests per reading, backlog drain`,
    `${(drainReq / drained).toFixed(3)} (${drainReq} requests for ${drained} readings; first success ${((firstOkMs - upMs) / 1000).toFixed(1)} s after recovery, the pending backoff; queue empty ${((emptyMs - firstOkMs) / 1000).toFixed(0)} s later, 1 s steps); ≈ ${(wire / drained).toFixed(0)} B on the wire per reading; afterwards ${(liveReq / live).toFixed(3)}`,
    `JSON device of testConfig (3 sensors, 60 s), 1 h outage: ${backlog} readings queued, ${failed} failed attempts (backoff 2 s..300 s, jitter seeded), then every write answers 200; "afterwards" = the next hour; scripted writer, fake clock; wire = each body as the writer got it (no ts: a scripted writer gives no Date, so wall time stays unknown) + the ${headBytes} B request head of §2's JSON write`,
  ];
}

/** A socket that answers every request at once and keeps nothing: only the client's own allocation shows. */
const leanSockets: SocketFactory = {
  connect(_host, _port, h) {
    void Promise.resolve().then(() => h.onConnect());
    return {
      write: () => void Promise.resolve().then(() => h.onData(LEAN_REPLY)),
      release: () => undefined,
      destroy: () => undefined,
    };
  },
  abandoned: () => 0,
};
const LEAN_REPLY = new TextEncoder().encode('HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nValue updated');

async function cycle(): Promise<Row[]> {
  const gc = getGc();
  const sim = startAgent(benchConfig(10000));
  const round = 10000;
  const req = (): number => sim.agent.uplink.stats().requests;
  await sim.advance(200 * round); // warm-up: compiled code, grown buffers
  const r0 = req();
  const rounds = 1000;
  const cpu0 = process.cpuUsage();
  await sim.advance(rounds * round);
  const cpu = process.cpuUsage(cpu0);
  const perRound = (cpu.user + cpu.system) / rounds;
  const writes = (req() - r0) / rounds;
  const rows: Row[] = [
    ['4', 'host CPU per cycle', `${perRound.toFixed(0)} µs per sample round (${(perRound / writes).toFixed(0)} µs per request)`, `HOST STAND-IN (Node ${process.version}, V8), not device timing: a round = 3 sensors sampled, ${writes} records encoded, queued on the in-memory flash, sent over scripted sockets, 200 read; fake clock included`],
  ];
  if (!gc) {
    sim.agent.stop();
    rows.push(['4', 'host allocation per cycle', 'n/a', 'no gc available: run with node --expose-gc']);
    return rows;
  }
  // Retention: what stays after a full collection over many rounds.
  gc();
  const k0 = process.memoryUsage().heapUsed;
  const keep = 2000;
  await sim.advance(keep * round);
  gc();
  const k1 = process.memoryUsage().heapUsed;
  const a = await allocPerOp(gc, (n) => sim.advance(n * round), 20);
  sim.agent.stop();

  const http = createHttpClient({ sockets: leanSockets, timers: idleTimers });
  const made = createServiceClient({ http, baseUrl: BASE });
  if (!made.ok) throw new Error(made.error);
  const c = made.client;
  const ref = { apiKey: API_KEY, deviceId: 12, devicePin: 4821 };
  const json = bodyFor('JSON');
  const each = async (n: number, f: () => Promise<unknown>): Promise<void> => {
    for (let i = 0; i < n; i++) await f();
  };
  await each(300, () => c.writeValue(ref, VALUE_TEXT));
  await each(300, () => c.writeJson(ref, json));
  const v = await allocPerOp(gc, (n) => each(n, () => c.writeValue(ref, VALUE_TEXT)), 50);
  const j = await allocPerOp(gc, (n) => each(n, () => c.writeJson(ref, json)), 50);
  // The HTTP layer alone, with the request the Value write makes.
  const get = { method: 'GET' as const, host: '192.168.1.10', port: 8080, path: '/api/updatedevicevalue/' + API_KEY + '/12/4821/' + VALUE_TEXT };
  await each(300, () => http.request(get));
  const h = await allocPerOp(gc, (n) => each(n, () => http.request(get)), 50);
  const note = 'HOST STAND-IN: V8 object sizes, not the device engine\'s; median of windows with no GC inside';
  rows.push(
    ['4', 'host allocation per cycle', `${a.heap.toFixed(0)} B JS heap + ${a.buffers.toFixed(0)} B array buffers per round (${(a.heap / writes).toFixed(0)} B per request)`, `${note} (${a.windows} windows of 20 rounds); includes the fake clock, the in-memory flash and the TypeScript loader's name-keeping helper on each closure (≈ 0.6 KB per round, absent from the device bundle)`],
    ['4', '  of which service + HTTP client', `Value write ${v.heap.toFixed(0)} B + ${v.buffers.toFixed(0)} B buffers; JSON write ${j.heap.toFixed(0)} B + ${j.buffers.toFixed(0)} B buffers`, `${note}; socket that answers at once and keeps nothing`],
    ['4', '  of which HTTP client alone', `Value request ${h.heap.toFixed(0)} B + ${h.buffers.toFixed(0)} B buffers; the service client's share ≈ ${(v.heap - h.heap).toFixed(0)} B`, `${note}; the same GET through http.request directly`],
    ['4', 'host heap kept after full GC', `${k1 - k0} B over ${keep} rounds (${((k1 - k0) / keep).toFixed(1)} B per round)`, 'leak check: a leak grows with the rounds, V8 code and type feedback do not; includes the in-memory flash stand-in'],
  );
  return rows;
}

interface Day {
  readings: number;
  requests: number;
  retries: number;
  bytes: number;
  joins: number;
  scans: number;
  sleeps: number;
}

async function simulateDay(intervalMs: number, radioOff: boolean): Promise<Day> {
  const sim = startAgent(benchConfig(intervalMs, radioOff));
  await sim.advance(DAY_MS);
  sim.agent.stop();
  const u = sim.agent.uplink.stats();
  const w = sim.p.wifi.counts;
  return { readings: u.delivered, requests: u.requests, retries: u.retries, bytes: u.bytesSent, joins: w.connects, scans: w.scans, sleeps: w.disconnects };
}

async function day(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [intervalMs, radioOff] of [[DEFAULT_INTERVAL_MS, false], [DEFAULT_INTERVAL_MS, true], [300000, false], [300000, true]] as const) {
    const d = await simulateDay(intervalMs, radioOff);
    if (d.retries) throw new Error(`day at ${intervalMs} ms: ${d.retries} retries on a clean link; the simulation is not settling`);
    const activeMs = d.requests * REQUEST_MS + ((d.bytes + d.requests * REPLY_BYTES) * 8) / PHY_BITS_PER_MS + d.joins * JOIN_MS;
    const idleMs = radioOff && d.joins ? 0 : DAY_MS - activeMs;
    const mAh = (activeMs * ACTIVE_MA + idleMs * IDLE_MA) / 3600000;
    const label = `24 h at ${intervalMs / 1000} s, radioOffBetweenUploads ${radioOff ? 'on' : 'off'}`;
    rows.push([
      '5',
      label,
      `${d.requests} requests, ${d.bytes} B sent, radio active ≈ ${(activeMs / 1000).toFixed(0)} s, ≈ ${mAh.toFixed(1)} mAh radio`,
      `${d.readings} records delivered (one per device per sample round), ${d.retries} retries; model: ${REQUEST_MS} ms per request + bytes (sent + ${REPLY_BYTES} B reply) at ${PHY_BITS_PER_MS / 1000} Mbit/s + ${JOIN_MS / 1000} s per join; ${ACTIVE_MA} mA active, ${IDLE_MA} mA associated idle (assumptions)`,
    ]);
    if (radioOff) {
      const ignored = intervalMs < RADIO_OFF_MIN_INTERVAL_MS;
      rows.push([
        '5',
        '  reconnects and their cost',
        `${d.joins} joins (${d.scans} scans, ${d.sleeps} radio-offs) ≈ ${(d.joins * JOIN_MS_LOW / 1000).toFixed(0)}..${(d.joins * JOIN_MS_HIGH / 1000).toFixed(0)} s of radio`,
        (ignored
          ? `the agent keeps the radio on below ${RADIO_OFF_MIN_INTERVAL_MS / 1000} s periods (RADIO_OFF_MIN_INTERVAL_MS); forced, it would be ${DAY_MS / intervalMs} joins ≈ ${(((DAY_MS / intervalMs) * JOIN_MS) / 60000).toFixed(0)} min of radio a day; `
          : '') + `joins counted by the simulated Wi-Fi; ${JOIN_MS_LOW / 1000}..${JOIN_MS_HIGH / 1000} s per join (assumption); break-even period ≈ ${((JOIN_MS * ACTIVE_MA) / IDLE_MA / 1000).toFixed(0)} s`,
      ]);
    }
  }
  return rows;
}

function printTable(head: Row, rows: Row[]): void {
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => esc(r[i]!).length)));
  const line = (r: string[]): string => '| ' + r.map((c, i) => esc(c).padEnd(w[i]!)).join(' | ') + ' |';
  console.log(line(head));
  console.log('|' + w.map((n) => '-'.repeat(n + 2)).join('|') + '|');
  for (const r of rows) console.log(line(r));
}

async function timerIds(): Promise<Row[]> {
  const r = await timerIdRate();
  return [[
    '6',
    'Kaluma timer ids taken, reference config + a counter',
    `${r.idsTaken} ids in ${r.simulatedS} s (${r.idsPerS.toFixed(4)} per s): 2^31 after ≈ ${r.yearsTo2e31 > 1000 ? '> 1000' : r.yearsTo2e31.toFixed(0)} years`,
    `the device bundle in the Kaluma stand-in: 3 sensors every 1 s (temp, soil median:5 two-point, door), Value/JSON/XML devices, + a counter polled every 10 ms; ${r.writes} writes answered 200, ${r.dnsLookups} DNS lookup(s) for the service's host name; every program timer is served by the timers port's one interval (before: one id per timer, per request deadline and per socket write: ≈ 248 days with the counter alone)`,
  ]];
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const rows: Row[] = [...(await bundle()), ...(await wire()), ...(await batching()), ...(await cycle()), ...(await day()), ...(await timerIds()), ...(await engineHeap()), ...(await records())];
  console.log(`Benchmark of ${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC (${process.platform} ${process.arch}, Node ${process.version})\n`);
  printTable(['§', 'measure', 'result', 'basis and assumptions'], rows);
  console.log(`\n(${((Date.now() - t0) / 1000).toFixed(1)} s wall time)`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
