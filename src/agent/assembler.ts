// Turns samples into one queued record per device write. JSON and XML devices
// carry every sensor's latest value, coalesced within a short window, so
// sensors of one period cost one write, not one each.
import type { DeviceConfig, Reading } from '../model';
import type { Clock, Log, TimerId, Timers } from '../ports/ports';
import { encodeFor } from '../service/encode';
import type { OutboxRecord, Outbox as Queue } from '../queue/types';
import type { SampleEvent } from './sampler';
import type { TimeKeeper } from './time';

/** Samples of one period within this long go in one record; an I2C part's conversion (at most 180 ms) takes longer. */
const COALESCE_MS = 50;
const COALESCE_I2C_MS = 250;
const SPILL_MAX = 32;
/** The longest wait between two tries of a file system that refuses records. */
const RETRY_MAX_MS = 300000;

export interface Assembler {
  onSample(e: SampleEvent): void;
  stop(): void;
  /** Records lost: not encodable (a value too large to print) or not storable (flash failing, RAM spill full). */
  failed(): number;
}

/** Whether a device's sensor name `name` carries the reading `id`: its own, or one of its quantities ('air' carries 'air.humidity'). */
const carries = (name: string, id: string): boolean => id === name || (id.charCodeAt(name.length) === 46 && id.startsWith(name));

export function createAssembler(o: {
  devices: DeviceConfig[];
  queue: Queue;
  clock: Clock;
  timers: Timers;
  time: TimeKeeper;
  bootId: number;
  log: Log;
  /** The shortest sampling period: the first wait before a refusing outbox is tried again. */
  retryMs: number;
  /** Some sensor is an I2C part, whose readings come a conversion after the others: the window waits for them. */
  i2c?: boolean;
  /** Called after each record was queued (wakes the uplink). */
  onQueued?: () => void;
}): Assembler {
  // One Reading per sensor, updated in place and shared by the devices that
  // carry it: no garbage per sample.
  const latest: Reading[] = [];
  // One timer closes the window for every waiting device: no closure or timer per record.
  const pending: boolean[] = [];
  let window: TimerId | undefined;
  let failed = 0;
  let lost = 0;
  const spill: OutboxRecord[] = [];
  let retryAt = 0;
  let retryWaitMs = 0;

  /**
   * Queues the record of device `one`, or, from the window's timer, of every
   * waiting device. One function for both: every function costs heap.
   */
  function flush(one?: number): void {
    if (one === undefined) window = undefined;
    for (let di = 0; di < o.devices.length; di++) {
      if (one === undefined ? !pending[di] : di !== one) continue;
      pending[di] = false;
      const dev = o.devices[di] as DeviceConfig;
      const group: Reading[] = [];
      // 'air' carries each of its quantities' readings, 'air.humidity' one.
      for (const name of dev.sensors) for (const r of latest) if (r.value === r.value && carries(name, r.sensorId)) group.push(r);
      if (!group.length) continue;
      const seq = o.queue.nextSeq();
      let upMs = 0;
      for (const r of group) if (r.uptimeMs > upMs) upMs = r.uptimeMs;
      const enc = encodeFor(dev, group, seq);
      if (!enc.ok) {
        failed++;
        o.log.error('device ' + dev.name + ': reading ' + seq + ' not sent: ' + enc.error);
        continue;
      }
      const wall = o.time.wallAt(upMs);
      const rec = { seq, device: dev.name, payload: enc.text, uptimeMs: upMs, bootId: o.bootId, wallMs: wall };
      // A failed flash write keeps the record in a small RAM spill; a refusing
      // file system is tried again with a backoff, since each refused write
      // leaks C memory in Kaluma (docs/architecture.md, The ports and the runtime's defects).
      spill.push(rec);
      const now = o.clock.uptimeMs();
      if (now >= retryAt) {
        while (spill.length && o.queue.push(spill[0] as OutboxRecord)) spill.shift();
        retryWaitMs = spill.length ? Math.min(RETRY_MAX_MS, retryWaitMs * 2 || o.retryMs) : 0;
        retryAt = now + retryWaitMs;
      }
      if (spill.length) {
        o.log.error('outbox: could not store reading ' + seq + '; ' + spill.length + ' held in RAM');
        if (spill.length > SPILL_MAX) {
          spill.shift();
          lost++;
        }
      }
      if (o.onQueued) o.onQueued();
    }
  }

  return {
    onSample(e) {
      let r: Reading | undefined;
      for (let di = 0; di < o.devices.length; di++) {
        const dev = o.devices[di] as DeviceConfig;
        if (dev.sensors.indexOf(e.sensor) < 0 && (e.base === undefined || dev.sensors.indexOf(e.base) < 0)) continue;
        if (!r) {
          for (const x of latest) if (x.sensorId === e.sensor) r = x;
          // Four properties, five for a whole number: no seq (the record's)
          // nor wall time (stamped at send time), no decimals left undefined.
          if (!r) latest.push((r = { sensorId: e.sensor, value: 0, unit: '', uptimeMs: 0 }));
          r.value = e.value;
          r.unit = e.unit;
          r.uptimeMs = e.atMs;
          if (e.whole) r.decimals = 0;
          else delete r.decimals;
        }
        // NaN: the sensor has no reading now (an I2C part that stopped answering); its last is not sent again.
        if (e.value !== e.value) continue;
        if (dev.format === 'Value') flush(di);
        else if (!pending[di]) {
          pending[di] = true;
          if (window === undefined) window = o.timers.setTimeout(flush, o.i2c ? COALESCE_I2C_MS : COALESCE_MS);
        }
      }
    },
    stop() {
      if (window !== undefined) {
        o.timers.clearTimeout(window);
        // Samples already taken are not thrown away on an orderly stop.
        flush();
      }
    },
    failed: () => failed + lost,
  };
}
