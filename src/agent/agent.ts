// Ordered start and stop of the data path (docs/architecture.md, The data path).
import type { AgentConfig, FilterSpec, SensorConfig } from '../config/types';
import { createChain } from '../filters/index';
import { createHttpClient } from '../net/http';
import type { HttpClient } from '../net/types';
import type { Platform } from '../ports/ports';
import type { Outbox } from '../queue/types';
import type { ColdLoader } from '../cold';
import { createServiceClient } from '../service/client';
import type { ServiceClient } from '../service/client';
import { createSensor } from '../sensors/index';
import type { I2cSensor } from '../sensors/i2c/state';
import type { startI2c as StartI2c } from '../sensors/i2c/start';
import { createAssembler } from './assembler';
import { createLink } from './link';
import type { Link } from './link';
import { createSampler } from './sampler';
import type { SampledSensor, Sampler, SampleEvent } from './sampler';
import { createTimeKeeper } from './time';
import type { TimeKeeper } from './time';
import { createUplink } from './uplink';
import type { Delivery, Uplink, Writer } from './uplink';

// A const enum is inlined by the build; a module-level const stays on the heap.
const enum A {
  RadioOffMinIntervalMs = 300000,
  /** The lowest heapUsed of this window and the last stands for the live set. */
  LiveWindowMs = 60000,
}

/**
 * Below this sampling period the radio stays on even when radio-off is set:
 * a join (scan, association, DHCP) costs more than idling associated
 * (`npm run bench` states the model).
 */
export const RADIO_OFF_MIN_INTERVAL_MS: number = A.RadioOffMinIntervalMs;

export interface Agent {
  readonly sampler: Sampler;
  readonly uplink: Uplink;
  readonly link: Link;
  readonly time: TimeKeeper;
  readonly client: ServiceClient;
  /** The HTTP client under `client`, for its failure counts. */
  readonly http: HttpClient;
  readonly queue: Outbox;
  /** The I2C sensors (their state: src/sensors/i2c/state.ts), when some are carried. */
  readonly i2c: I2cSensor[] | undefined;
  start(): void;
  stop(): void;
  running(): boolean;
}

export type AgentResult = { ok: true; agent: Agent } | { ok: false; error: string };

export function createAgent(o: {
  p: Platform;
  config: AgentConfig;
  queue: Outbox;
  bootId: number;
  /** Write path override (tests, benchmarks); the service client otherwise. */
  writer?: Writer;
  onSample?: (e: SampleEvent) => void;
  onDelivered?: (d: Delivery) => void;
  /** Each Delivery carries its body (see Uplink's keepBody). */
  keepBody?: boolean;
  /** Loads cold code by name (the cold loader's load()): the uplink's for held devices. */
  load?: ColdLoader['load'];
}): AgentResult {
  const { p, config } = o;
  const lim = config.agent;
  const http = createHttpClient({
    sockets: p.sockets, timers: p.timers, timeoutMs: lim.requestTimeoutMs, maxResponseBytes: lim.maxResponseBytes,
  });
  const made = createServiceClient({ http, baseUrl: config.service.url, log: p.log });
  if (!made.ok) return made;
  const client = made.client;
  const time = createTimeKeeper({ clock: p.clock });
  const link = createLink({ wifi: p.wifi, creds: () => config.wifi, system: p.system, log: p.log, watchdog: p.watchdog, abandoned: () => p.sockets.abandoned(), clock: p.clock });
  let low = Infinity;
  let lastLow = Infinity;
  let liveAt = -Infinity;
  // Plain loops, not callbacks: each function costs heap on the device. The
  // sensors some device carries, the shortest period of those and of all.
  const used: SensorConfig[] = [];
  // I2C parts (an address, not a pin): their objects and steps are cold code, loaded only when one is carried.
  const onBus: SensorConfig[] = [];
  let retryMs = Infinity;
  let shortest = Infinity;
  for (const s of config.sensors) {
    if (s.intervalMs < shortest) shortest = s.intervalMs;
    let carried = false;
    // A device carries the sensor, or one of its quantities ('air.humidity').
    for (const d of config.devices) for (const n of d.sensors) carried = carried || n === s.name || n.indexOf(s.name + '.') === 0;
    if (carried) {
      (s.address === undefined ? used : onBus).push(s);
      if (s.intervalMs < retryMs) retryMs = s.intervalMs;
    }
  }
  const uplink = createUplink({
    queue: o.queue,
    writer: o.writer || client,
    devices: config.devices,
    apiKey: config.service.apiKey,
    bootId: o.bootId,
    link,
    time,
    clock: p.clock,
    timers: p.timers,
    log: p.log,
    backoff: { baseMs: lim.backoffBaseMs, capMs: lim.backoffCapMs },
    sleepWhenIdle: lim.radioOffBetweenUploads && shortest >= (A.RadioOffMinIntervalMs as number),
    canSend: () => {
      // heapUsed counts garbage too: the lowest reading of this window and the
      // last stands for the live set, with nothing allocated to force a
      // collection (docs/architecture.md, Delivery: the heap floor).
      const m = p.system.memory();
      if (!m) return undefined;
      const now = p.clock.uptimeMs();
      if (now - liveAt > (A.LiveWindowMs as number)) {
        lastLow = low;
        low = m.heapUsed;
        liveAt = now;
      } else if (m.heapUsed < low) low = m.heapUsed;
      const free = m.heapTotal - (low < lastLow ? low : lastLow);
      return free < lim.heapFloorBytes ? 'free heap ' + free + ' B is below the floor of ' + lim.heapFloorBytes + ' B; request postponed' : undefined;
    },
    onDelivered: o.onDelivered,
    keepBody: o.keepBody,
    load: o.load,
  });
  const assembler = createAssembler({
    devices: config.devices, queue: o.queue, clock: p.clock, timers: p.timers, time, bootId: o.bootId, log: p.log,
    retryMs,
    i2c: onBus.length > 0,
    // wake() reads no `this`: no wrapper function needed.
    onQueued: uplink.wake,
  });
  const sampled: SampledSensor[] = [];
  const onSample = (e: SampleEvent): void => {
    assembler.onSample(e);
    if (o.onSample) o.onSample(e);
  };
  let i2c: I2cSensor[] | undefined;
  let sampler: Sampler;
  try {
    for (const cfg of used) {
      const sensor = createSensor({ cfg, pins: p.pins, timers: p.timers });
      // A pin kind always has its filters (the checker fills them); only an I2C kind's are left out when empty.
      sampled.push({ sensor, filter: createChain(cfg.filters as FilterSpec[]), intervalMs: cfg.intervalMs, whole: cfg.kind === 'digital' || cfg.kind === 'counter' });
    }
    if (onBus.length) {
      // The runtime always gives the loader; a harness with I2C sensors must too.
      const load = o.load as ColdLoader['load'];
      const m = load<typeof StartI2c>('i2c-start');
      if (m.ok) i2c = m.value(onBus, { p, load, emit: onSample, chain: createChain, busy: uplink.stats, buses: [] }, sampled);
      else p.log.error('i2c: ' + m.error + '; the I2C sensors are not read');
    }
    sampler = createSampler({
      sensors: sampled,
      timers: p.timers,
      clock: p.clock,
      log: p.log,
      onSample,
    });
  } catch (e) {
    // A pin the platform refuses: close what opened, report, start nothing.
    for (const s of sampled) s.sensor.close();
    return { ok: false, error: 'sensor setup failed: ' + String(e) };
  }
  let on = false;
  const agent: Agent = {
    sampler, uplink, link, time, client, http, queue: o.queue, i2c,
    start() {
      if (on) return;
      on = true;
      uplink.wake();
      sampler.start();
    },
    stop() {
      if (!on) return;
      on = false;
      sampler.stop();
      assembler.stop();
      uplink.stop();
      for (const s of sampled) s.sensor.close();
    },
    running: () => on,
  };
  return { ok: true, agent };
}
