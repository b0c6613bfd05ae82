// A simulated day at one reading per second per sensor, on the fake clock,
// with the flash outbox over an in-memory store and a scripted service that
// answers at once. Every four hours the service is away for 10 minutes and
// the Wi-Fi link drops silently once, so the queue fills and drains six
// times. Shared by the 24-hour test and scripts/measure/soak.ts.
import type { WriteOutcome } from '../../src/agent/uplink';
import { createSimWifi } from '../../host/ports/wifi';
import { testConfig } from '../fakes/config';
import { createMemoryFileStore } from '../fakes/files';
import { Rig, scriptedWriter, seeded } from './harness';
import type { Stored } from './harness';

export interface DayFigures {
  simulatedMs: number;
  produced: number;
  requests: number;
  delivered: number;
  retries: number;
  bytesSent: number;
  maxDepth: number;
  maxBytes: number;
  /** Largest sum of file sizes under the outbox directory. */
  maxFlashBytes: number;
  dropped: number;
  endDepth: number;
  boundBytes: number;
  segmentBytes: number;
  link: Record<string, number>;
  /** seqs the service stored, in order (kept only when asked). */
  stored?: number[];
  /** seqs the agent produced, in order (kept only when asked). */
  produced_?: number[];
}

const HOUR = 3600000;
/**
 * Service outage length. The default 192 KB outbox holds about 2,700
 * records (~73 B framed), 15 minutes at three records a second; ten
 * minutes plus the backoff stays inside it.
 */
export const OUTAGE = 10 * 60000;

export async function runDay(o: { hours?: number; keep?: boolean; seed?: number } = {}): Promise<DayFigures> {
  const hours = o.hours ?? 24;
  const random = seeded(o.seed ?? 7);
  const cfg = testConfig();
  for (const s of cfg.sensors) s.intervalMs = 1000;
  const stored: Stored[] = [];
  let storedCount = 0;
  let down = false;
  /** Connect count when the link was dropped, until the agent joins again. */
  let lostAt: number | undefined;
  const ok: WriteOutcome = { kind: 'ok', status: 200, bytesSent: 0 };
  const files = createMemoryFileStore();
  const wifi = createSimWifi({ ssid: 'field-net', up: true });
  const boundBytes = cfg.agent.outboxBytes;
  const segmentBytes = 4096;
  // The stored list is the check in the test; the benchmark only counts.
  const sink = o.keep ? stored : { push: (): void => void storedCount++ };
  const writer = scriptedWriter({
    config: cfg,
    stored: sink,
    answer: () => {
      // Until the agent re-associates, a dropped link fails like Kaluma's socket does.
      if (lostAt !== undefined && wifi.counts.connects === lostAt) return { kind: 'retry', reason: 'connect: WiFi is not connected.', bytesSent: 0 };
      lostAt = undefined;
      return down ? { kind: 'retry', reason: 'HTTP 503', bytesSent: 120 } : { ...ok, bytesSent: 120 };
    },
  });
  const rig = new Rig({ config: cfg, files, wifi, writer, maxBytes: boundBytes, segmentBytes, forget: !o.keep });
  // The uplink's jitter draws from Math.random; a seeded one keeps runs identical.
  const realRandom = Math.random;
  Math.random = random;
  const f: DayFigures = {
    simulatedMs: 0, produced: 0, requests: 0, delivered: 0, retries: 0, bytesSent: 0, maxDepth: 0, maxBytes: 0, maxFlashBytes: 0,
    dropped: 0, endDepth: 0, boundBytes, segmentBytes, link: {},
  };
  try {
    rig.boot();
    const watch = (): void => {
      const st = rig.queue.stats();
      if (st.depth > f.maxDepth) f.maxDepth = st.depth;
      if (st.bytes > f.maxBytes) f.maxBytes = st.bytes;
      let flash = 0;
      for (const p of files.paths()) if (p.startsWith('q/')) flash += files.size(p) ?? 0;
      if (flash > f.maxFlashBytes) f.maxFlashBytes = flash;
    };
    for (let h = 0; h < hours; h++) {
      if (h % 4 === 1) {
        await rig.run(20 * 60000, 1000, undefined, watch);
        down = true;
        await rig.run(OUTAGE, 1000, undefined, watch);
        down = false;
        await rig.run(40 * 60000 - OUTAGE, 1000, undefined, watch);
      } else if (h % 4 === 3) {
        await rig.run(Math.floor(random() * 50 * 60000), 1000, undefined, watch);
        wifi.drop();
        lostAt = wifi.counts.connects;
        await rig.run(HOUR - (rig.now() % HOUR), 1000, undefined, watch);
      } else {
        await rig.run(HOUR, 1000, undefined, watch);
      }
    }
    f.simulatedMs = rig.now();
    // Sampling ends with the day; what is queued then goes out.
    rig.agent.sampler.stop();
    await rig.run(10 * 60000, 1000, undefined, watch);
  } finally {
    Math.random = realRandom;
  }
  const up = rig.agent.uplink.stats();
  const st = rig.queue.stats();
  f.produced = rig.producedCount;
  f.requests = up.requests;
  f.delivered = up.delivered;
  f.retries = up.retries;
  f.bytesSent = up.bytesSent;
  f.dropped = st.dropped;
  f.endDepth = st.depth;
  f.link = rig.linkTotals();
  if (o.keep) {
    f.stored = stored.map((s) => s.seq);
    f.produced_ = rig.produced.map((r) => r.seq);
  } else if (storedCount !== f.delivered) {
    throw new Error(`service stored ${storedCount} writes, uplink counted ${f.delivered}`);
  }
  return f;
}
