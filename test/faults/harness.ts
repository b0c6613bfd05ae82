// Shared pieces of the fault-injection suite: a seeded PRNG, an outbox tap
// that records what the agent produced, a device "rig" that can reboot and
// lose power, and helpers to compare what a server received with what the
// agent produced.
import { createAgent } from '../../src/agent/agent';
import { startOutputs } from '../../src/agent/outputs';
import type { Outputs } from '../../src/agent/outputs';
import { loadOutputsCode } from '../fakes/outputs-code';
import type { ServiceClient } from '../../src/service/client';
import type { Agent } from '../../src/agent/agent';
import type { WriteOutcome, Writer } from '../../src/agent/uplink';
import type { AgentConfig } from '../../src/config/types';
import { createHttpClient } from '../../src/net/http';
import type { FileStore, SocketFactory } from '../../src/ports/ports';
import { createServiceClient } from '../../src/service/client';
import { createOutbox } from '../../src/queue/outbox';
import type { Outbox, OutboxRecord } from '../../src/queue/types';
import type { SimWifi } from '../../host/ports/wifi';
import { createTestPlatform } from '../fakes/platform';
import type { TestPlatform } from '../fakes/platform';
import { createFakeTime, flushPromises } from '../fakes/time';
import type { FakeTime } from '../fakes/time';

/** Seeded PRNG (mulberry32): floats in [0, 1). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Integer in [lo, hi]. */
export const between = (r: () => number, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

/** Removes the send-time stamp, so a received body compares with the queued payload. */
export function unstamp(body: string): string {
  return body.replace(/,"ts":"[^"]*"\}$/, '}').replace(/^(<[^>]*?) ts="[^"]*"/, '$1');
}

/** seq carried by a JSON or XML body; undefined for a Value body. */
export function seqIn(body: string): number | undefined {
  const m = /"seq":(\d+)|seq="(\d+)"/.exec(body);
  return m ? Number(m[1] ?? m[2]) : undefined;
}

/**
 * Wraps an outbox: every push that returned true is recorded in `produced`.
 * While `dead()` (the board lost power or is rebooting) the wrapper is the
 * board that no longer runs: nothing is pushed, peeked or acknowledged.
 */
export function tapOutbox(
  inner: Outbox,
  produced: { push(r: OutboxRecord): unknown },
  dead: () => boolean = () => false,
  dropped?: number[],
  onUndrop?: (n: number) => void,
): Outbox {
  return {
    push(r) {
      if (dead()) return false;
      // Which records a push pushed out (small queues only: it reads them all).
      const before = dropped ? seqs(inner.peek(Infinity)) : [];
      const ok = inner.push(r);
      if (ok) produced.push({ ...r });
      if (dropped) {
        const after = new Set(seqs(inner.peek(Infinity)));
        for (const q of before) if (!after.has(q)) dropped.push(q);
      }
      return ok;
    },
    peek: (n) => (dead() ? [] : inner.peek(n)),
    ack(k) {
      if (!dead()) inner.ack(k);
    },
    reject(reason) {
      if (!dead()) inner.reject(reason);
    },
    undrop(n) {
      if (dead()) return;
      inner.undrop(n);
      if (onUndrop) onUndrop(n);
    },
    // What the held devices' lanes are made from (src/agent/held.ts puts them in
    // place on this wrapper): a record moved into a lane is a move, not a new reading.
    found: inner.found,
    openLane: inner.openLane ? (device) => (dead() ? undefined : inner.openLane!(device)) : undefined,
    full: inner.full ? (s, bytes) => inner.full!(s, bytes) : undefined,
    stats: () => inner.stats(),
    nextSeq: () => inner.nextSeq(),
  };
}

/** Records grouped by device, in order. */
export function byDevice(recs: { device: string; payload: string }[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of recs) (out[r.device] ??= []).push(r.payload);
  return out;
}

export const seqs = (recs: OutboxRecord[]): number[] => recs.map((r) => r.seq);

export interface RigOptions {
  config: AgentConfig;
  files: FileStore;
  wifi: SimWifi;
  sockets?: SocketFactory;
  writer?: Writer | ((rig: Rig) => Writer);
  /** The outputs' reads, where the writer is scripted too. */
  reader?: (rig: Rig) => Pick<ServiceClient, 'call'>;
  maxBytes?: number;
  segmentBytes?: number;
  /** Count produced records without keeping them (long runs). */
  forget?: boolean;
  /** When given, receives the seq of every record a push dropped to make room. */
  dropped?: number[];
  /** Extra condition under which the board counts as dead (e.g. the store went dark). */
  dead?: () => boolean;
  /**
   * Health reports (uplink.report) every `everyMs` of each boot, the first at
   * once, as the runtime's supervisor makes them: the JSON says which boot and
   * which report it is.
   */
  health?: { deviceId: number; devicePin: number; everyMs: number };
}

/**
 * One board over its whole life: the file store, the access point and the
 * server outlive each boot; every boot gets a fresh fake clock (uptime from
 * 0), a fresh platform and agent over the same files, and the next bootId.
 * A reboot the agent asks for is taken at once: the old agent is simply
 * abandoned (its timers belong to the old clock and never fire again).
 */
export class Rig {
  readonly produced: OutboxRecord[] = [];
  producedCount = 0;
  /** Records the uplink reported as dropped while in flight but delivered (Outbox.undrop). */
  undropped = 0;
  time!: FakeTime;
  p!: TestPlatform;
  agent!: Agent;
  /** The running boot's outputs, where the config has any. */
  outputs?: Outputs;
  queue!: Outbox;
  bootId = 0;
  /** World time at the start of the current boot. */
  private base = 0;
  private rebooting = false;
  /** Reboots the agent asked for (the link ladder's last step). */
  reboots = 0;
  /** Link ladder counts summed over the boots before the current one. */
  private pastLink: Record<string, number> = {};

  constructor(readonly o: RigOptions) {}

  /** World time: continuous across boots. */
  now(): number {
    return this.base + this.time.now();
  }

  dead(): boolean {
    return this.rebooting || (this.o.dead ? this.o.dead() : false);
  }

  /** Link ladder counts over every boot so far. */
  linkTotals(): Record<string, number> {
    const out = { ...this.pastLink };
    const st = this.agent.link.stats() as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(st)) if (typeof v === 'number') out[k] = (out[k] ?? 0) + v;
    return out;
  }

  boot(): Agent {
    if (this.time) {
      this.base += this.time.now();
      this.pastLink = this.linkTotals();
    }
    this.rebooting = false;
    this.bootId++;
    this.time = createFakeTime();
    const p = createTestPlatform({ time: this.time, files: this.o.files });
    p.wifi = this.o.wifi;
    if (this.o.sockets) p.sockets = this.o.sockets;
    p.system.reboot = () => {
      this.reboots++;
      this.rebooting = true;
    };
    this.p = p;
    const inner = createOutbox({ files: this.o.files, dir: 'q', maxBytes: this.o.maxBytes ?? 196608, segmentBytes: this.o.segmentBytes });
    if (!inner) throw new Error('outbox unusable');
    const sink = {
      push: (r: OutboxRecord): void => {
        this.producedCount++;
        if (!this.o.forget) this.produced.push(r);
      },
    };
    this.queue = tapOutbox(inner, sink, () => this.dead(), this.o.dropped, (n) => void (this.undropped += n));
    const w = this.o.writer;
    const made = createAgent({
      p, config: this.o.config, queue: this.queue, bootId: this.bootId,
      writer: typeof w === 'function' ? w(this) : w,
      load: loadOutputsCode(),
    });
    if (!made.ok) throw new Error(made.error);
    this.agent = made.agent;
    this.agent.start();
    // As the runtime does once the boot is done (src/runtime.ts, attachOutputs).
    this.outputs = undefined;
    if (this.o.config.outputs.length) {
      const made = startOutputs(this.agent.uplink, this.o.reader ? this.o.reader(this) : this.agent.client, this.o.config, p, loadOutputsCode());
      if (typeof made === 'string') throw new Error(made);
      this.outputs = made;
    }
    const h = this.o.health;
    if (h) {
      const agent = this.agent;
      const ref = { apiKey: this.o.config.service.apiKey, deviceId: h.deviceId, devicePin: h.devicePin };
      const boot = this.bootId;
      let n = 0;
      const tick = (): void => {
        agent.uplink.report(ref, '{"boot":' + boot + ',"n":' + ++n + '}');
        p.timers.setTimeout(tick, h.everyMs);
      };
      p.timers.setTimeout(tick, 1);
    }
    return this.agent;
  }

  /**
   * Runs the world for ms in steps; a reboot the agent asked for is carried
   * out at the end of the step it happened in (the dead flag keeps the old
   * agent from doing anything in between).
   */
  async run(ms: number, step = 1000, settle?: () => Promise<void>, each?: () => void): Promise<void> {
    const end = this.now() + ms;
    while (this.now() < end) {
      await this.time.advance(Math.min(step, end - this.now()), settle);
      if (each) each();
      if (this.rebooting) this.boot();
    }
  }
}

/**
 * Settle function for real sockets under the fake clock: lets the request in
 * flight finish in real time before fake time moves on. `stuck()` says the
 * request is deliberately never going to be answered, so fake time may move
 * on to its deadline.
 */
export function realSettle(agent: () => Agent, stuck: () => boolean = () => false): () => Promise<void> {
  return async () => {
    await flushPromises();
    // Real I/O (closes, accepts) gets a turn even with nothing in flight.
    await new Promise((r) => setImmediate(r));
    const started = Date.now();
    while (agent().uplink.stats().inFlightSinceMs !== undefined && !stuck()) {
      if (Date.now() - started > 10000) throw new Error('request in flight for 10 s of real time');
      await new Promise((r) => setImmediate(r));
    }
    await flushPromises();
  };
}

/** One write attempt as the agent saw it, timed on the world clock. */
export interface Attempt {
  atMs: number;
  doneMs: number;
  device: number;
  body: string;
  outcome: WriteOutcome;
}

/**
 * The agent's own service client over the rig's sockets and timers, with
 * every write attempt recorded (pass as RigOptions.writer).
 */
export function recordingWriter(config: AgentConfig, attempts: Attempt[]): (rig: Rig) => Writer {
  return (rig) => {
    const p = rig.p;
    const http = createHttpClient({
      sockets: p.sockets, timers: p.timers, timeoutMs: config.agent.requestTimeoutMs, maxResponseBytes: config.agent.maxResponseBytes,
    });
    const made = createServiceClient({ http, baseUrl: config.service.url });
    if (!made.ok) throw new Error(made.error);
    const c = made.client;
    const rec = async (device: number, body: string, r: Promise<WriteOutcome>): Promise<WriteOutcome> => {
      const atMs = rig.now();
      const outcome = await r;
      attempts.push({ atMs, doneMs: rig.now(), device, body, outcome });
      return outcome;
    };
    return {
      writeValue: (d, t) => rec(d.deviceId, t, c.writeValue(d, t)),
      writeJson: (d, t) => rec(d.deviceId, t, c.writeJson(d, t)),
      writeXml: (d, t) => rec(d.deviceId, t, c.writeXml(d, t)),
    };
  };
}

/** A write the scripted service stored: which record it was (-1: not the head). */
export interface Stored {
  seq: number;
  device: string;
  boot: number;
  atMs: number;
}

/**
 * A scripted service for fast runs: stores each write as it arrives (when
 * `answer` says ok), identifies it as the outbox head whose payload must
 * equal the body sent, and answers after `latencyMs` on the boot's fake clock.
 */
export function scriptedWriter(o: {
  config: AgentConfig;
  stored: { push(s: Stored): unknown };
  answer: () => WriteOutcome;
  latencyMs?: number;
}): (rig: Rig) => Writer {
  return (rig) => {
    const time = rig.time;
    const boot = rig.bootId;
    const call = (deviceId: number, body: string): Promise<WriteOutcome> => {
      const head = rig.queue.peek(1)[0];
      const dev = o.config.devices.find((d) => d.deviceId === deviceId);
      const same = head !== undefined && dev !== undefined && head.device === dev.name && head.payload === unstamp(body);
      const out = o.answer();
      if (out.kind === 'ok') o.stored.push({ seq: same ? head.seq : -1, device: dev ? dev.name : '?', boot, atMs: rig.now() });
      const wait = o.latencyMs ?? 0;
      if (!wait) return Promise.resolve(out);
      return new Promise((resolve) => time.timers.setTimeout(() => resolve(out), wait));
    };
    return {
      writeValue: (d, t) => call(d.deviceId, t),
      writeJson: (d, t) => call(d.deviceId, t),
      writeXml: (d, t) => call(d.deviceId, t),
    };
  };
}
