// `npm run bench`: what the device pays per reading, as tables (not a test).
//   1. bundle size and what it costs in heap
//   2. bytes on the wire per write against the smallest request the spec allows
//   3. requests per reading with JSON batching while a backlog drains
//   4. host CPU and allocation per sample -> encode -> queue -> send cycle
//   5. a simulated day at the default interval, radio always on and duty-cycled
import { createAgent } from '../src/agent/agent';
import type { AgentConfig } from '../src/config/types';
import { createHttpClient } from '../src/net/http';
import { createOutbox } from '../src/queue/outbox';
import { createServiceClient } from '../src/service/client';
import { testConfig } from '../test/fakes/config';
import { createMemoryFileStore } from '../test/fakes/files';
import { createTestPlatform } from '../test/fakes/platform';
import { createFakeTime } from '../test/fakes/time';
import { createFakeWriter } from '../test/fakes/writer';
import { buildBundle } from './build';
import { BASE, measureWire, scriptedSockets } from './bench/wire';

/** Heap bytes per byte of minified bundle, measured on the device's engine build (180 KB heap). */
const HEAP_PER_BUNDLE_BYTE = 1.37;
/** Radio model for a request on a LAN: connect, request, reply, close at a few ms RTT, plus power-save wake-up. */
const RADIO_MS_PER_REQUEST = 40;
const RADIO_BITS_PER_MS = 20000; // 20 Mbit/s effective
/** A join from radio off: scan, association, DHCP (typical for this class of device; an assumption). */
const JOIN_MS = 3000;
/** Radio current while active, and average while associated and idle in power-save mode (assumptions). */
const ACTIVE_MA = 100;
const IDLE_MA = 1.5;

function table(head: string[], rows: (string | number)[][]): void {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r: (string | number)[]): string => '| ' + r.map((c, i) => String(c).padEnd(w[i]!)).join(' | ') + ' |';
  console.log(line(head));
  console.log('|' + w.map((n) => '-'.repeat(n + 2)).join('|') + '|');
  for (const r of rows) console.log(line(r));
  console.log('');
}

function quiet(): ReturnType<typeof createTestPlatform>['log'] {
  return { info: () => undefined, error: () => undefined };
}

async function bundle(): Promise<void> {
  const r = await buildBundle({ outfile: 'dist/bench-agent.js' });
  console.log(`## 1. Device bundle\n`);
  console.log(`${r.bytes} bytes minified; bytecode in the heap about ${Math.round((r.bytes * HEAP_PER_BUNDLE_BYTE) / 1024)} KB of the Pico W's 180 KB (estimate: ${HEAP_PER_BUNDLE_BYTE} heap bytes per bundle byte, measured on the device's engine build); budget ${r.budgetBytes ?? '?'} bytes.\n`);
  table(['module', 'bytes', 'share'], r.inputs.slice(0, 12).map((i) => [i.path, i.bytes, ((i.bytes / r.bytes) * 100).toFixed(1) + ' %']));
}

async function wire(): Promise<void> {
  console.log('## 2. Bytes on the wire per write\n');
  console.log('Minimal = request line + Host (+ Content-Length and the body for POST). Base URL ' + BASE + ', 32-character key, three sensors.\n');
  const rows = await measureWire();
  table(['format', 'sent B', 'minimal B', 'ratio'], rows.map((r) => [r.format, r.sent, r.minimal, r.ratio.toFixed(3)]));
}

function jsonOnly(batch: number): AgentConfig {
  const c = testConfig();
  c.devices = [{ ...c.devices[1]!, batch }];
  for (const s of c.sensors) s.intervalMs = 60000;
  return c;
}

async function batching(): Promise<void> {
  console.log('## 3. Requests per reading while a backlog drains (JSON device, 1 h outage at 60 s sampling)\n');
  const rows: (string | number)[][] = [];
  for (const n of [1, 5, 20]) {
    const time = createFakeTime();
    const p = createTestPlatform({ time });
    p.log = quiet();
    let down = true;
    const fw = createFakeWriter(() => (down ? { kind: 'retry', reason: 'down', bytesSent: 0 } : { kind: 'ok', status: 200, bytesSent: 0 }));
    const queue = createOutbox({ files: createMemoryFileStore(), dir: 'q', maxBytes: 196608 })!;
    const made = createAgent({ p, config: jsonOnly(n), queue, bootId: 1, writer: fw.writer });
    if (!made.ok) throw new Error(made.error);
    made.agent.start();
    await time.advance(3600000);
    const before = fw.writes.length;
    down = false;
    await time.advance(600000);
    made.agent.stop();
    const drained = fw.writes.length - before;
    const readings = made.agent.uplink.stats().delivered;
    rows.push([n, readings, drained, (drained / readings).toFixed(3)]);
  }
  table(['batch', 'readings delivered', 'requests after recovery', 'requests per reading'], rows);
}

async function cycle(): Promise<void> {
  console.log('## 4. Host CPU and allocation per sample -> encode -> queue -> send cycle\n');
  console.log('Node on this PC as a stand-in for the board: the figures rank changes, they are not device timings.\n');
  const time = createFakeTime();
  const p = createTestPlatform({ time });
  p.log = quiet();
  const { sockets } = scriptedSockets();
  const cfg = testConfig(BASE);
  const http = createHttpClient({ sockets, timers: p.timers });
  const made = createServiceClient({ http, baseUrl: BASE });
  if (!made.ok) throw new Error(made.error);
  const queue = createOutbox({ files: createMemoryFileStore(), dir: 'q', maxBytes: 196608 })!;
  const a = createAgent({ p, config: cfg, queue, bootId: 1, writer: made.client });
  if (!a.ok) throw new Error(a.error);
  const gc = (globalThis as { gc?: () => void }).gc;
  a.agent.start();
  await time.advance(100000); // warm up
  if (gc) gc();
  const n0 = a.agent.uplink.stats().sent;
  const cpu = process.cpuUsage();
  const heap0 = process.memoryUsage().heapUsed;
  await time.advance(1000 * 10000);
  const heap1 = process.memoryUsage().heapUsed;
  const used = process.cpuUsage(cpu);
  a.agent.stop();
  const writes = a.agent.uplink.stats().sent - n0;
  table(
    ['writes', 'CPU µs per write', 'heap growth per write (no GC in between: upper bound)'],
    [[writes, ((used.user + used.system) / writes).toFixed(0), gc ? ((heap1 - heap0) / writes).toFixed(0) + ' B' : 'run with --expose-gc']],
  );
}

async function day(radioOff: boolean, intervalMs: number): Promise<(string | number)[]> {
  const time = createFakeTime();
  const p = createTestPlatform({ time });
  p.log = quiet();
  const { sockets } = scriptedSockets();
  const cfg = testConfig(BASE);
  cfg.agent.radioOffBetweenUploads = radioOff;
  for (const s of cfg.sensors) s.intervalMs = intervalMs;
  const made = createServiceClient({ http: createHttpClient({ sockets, timers: p.timers }), baseUrl: BASE });
  if (!made.ok) throw new Error(made.error);
  const queue = createOutbox({ files: createMemoryFileStore(), dir: 'q', maxBytes: 196608 })!;
  const a = createAgent({ p, config: cfg, queue, bootId: 1, writer: made.client });
  if (!a.ok) throw new Error(a.error);
  a.agent.start();
  // A real-time turn between simulated steps lets the scripted socket answer.
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 50 && a.agent.uplink.stats().inFlightSinceMs !== undefined; i++) await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  await time.advance(24 * 3600000, settle);
  a.agent.stop();
  const u = a.agent.uplink.stats();
  const joins = p.wifi.counts.connects;
  const radioMs = u.requests * RADIO_MS_PER_REQUEST + (u.bytesSent * 8) / RADIO_BITS_PER_MS + joins * JOIN_MS;
  const idleMs = radioOff ? 0 : 24 * 3600000 - radioMs;
  const mAh = (radioMs * ACTIVE_MA + idleMs * IDLE_MA) / 3600000;
  return [
    radioOff ? 'off between uploads' : 'always on',
    intervalMs / 1000 + ' s',
    u.delivered,
    u.requests,
    u.bytesSent,
    joins,
    (radioMs / 1000).toFixed(1) + ' s',
    mAh.toFixed(1),
  ];
}

async function main(): Promise<void> {
  console.log(`# Benchmark, ${new Date().toISOString().slice(0, 10)} (${process.platform} ${process.arch}, Node ${process.version})\n`);
  await bundle();
  await wire();
  await batching();
  await cycle();
  console.log('## 5. A simulated day (3 sensors; one Value, one JSON and one XML device)\n');
  console.log(`Radio model (assumptions, not measured here): ${RADIO_MS_PER_REQUEST} ms active per request on a LAN, bytes at ${RADIO_BITS_PER_MS / 1000} Mbit/s, ${JOIN_MS / 1000} s per join from radio off, ${ACTIVE_MA} mA active, ${IDLE_MA} mA average while associated and idle. Joins are counted by the simulated link.\n`);
  table(['radio', 'interval', 'readings', 'requests', 'bytes sent', 'joins', 'radio active', 'radio mAh/day'], [
    await day(false, 60000),
    await day(false, 300000),
    await day(true, 300000),
    await day(false, 900000),
    await day(true, 900000),
  ]);
}

void main();
