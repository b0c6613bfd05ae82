// Drains the outbox in order, one request in flight. ok -> ack; retry ->
// exponential backoff with full jitter (Retry-After honoured); reject -> the
// record is set aside (counted, reason kept) so one bad record never blocks
// the queue; hold (a refusal that names the key, the device or the account:
// src/service/refusal.ts) -> the device is held: its readings stay queued
// (set aside in its lane of the outbox, in order, while other devices go on)
// and it is tried again with the backoff up to a slow steady retry. JSON
// devices with batch > 1 send consecutive queued records of the same device
// as one array.
import type { DeviceConfig } from '../model';
import type { Clock, Log, TimerId, Timers } from '../ports/ports';
import type { DeviceRef } from '../service/client';
import { LINK_CHECK_MAX_MS } from './link';
import type { Link } from './link';
import type { Outbox as Queue, OutboxRecord as QueueRecord } from '../queue/types';
import type { Outputs } from './outputs';
import { stampPayload } from './stamp';
import type { TimeKeeper } from './time';

/** The part of the service client the uplink uses. */
export interface Writer {
  writeValue(dev: DeviceRef, text: string): Promise<WriteOutcome>;
  /** `made`: the text comes from this program's own encoders, so it is not parsed again to check it. */
  writeJson(dev: DeviceRef, json: string, made?: boolean): Promise<WriteOutcome>;
  writeXml(dev: DeviceRef, xml: string, made?: boolean): Promise<WriteOutcome>;
}

export type WriteOutcome =
  | { kind: 'ok'; status: number; bytesSent: number; date?: string }
  | { kind: 'retry'; reason: string; retryAfterMs?: number; bytesSent: number }
  | { kind: 'reject'; reason: string; bytesSent: number }
  | { kind: 'hold'; reason: string; status?: number; bytesSent: number };

/** A device whose writes the service refused for a reason the operator can fix. */
export interface Held {
  device: string;
  /** The refusal, as the service client summed it up (secrets masked). */
  reason: string;
  status?: number;
  sinceMs: number;
  /** Refusals in a row; the next try waits the backoff of this attempt, up to HOLD_CAP_MS. */
  attempt: number;
  nextMs: number;
}

// A const enum, put in place by the build: a module-level const would be a
// binding on the heap for good.
const enum U {
  /** The slowest retry of a held device. */
  HoldCapMs = 300000,
}
/** The slowest retry of a held device: a fixed key or device is taken up within this. */
export const HOLD_CAP_MS: number = U.HoldCapMs;

export interface UplinkStats {
  sent: number;
  delivered: number;
  requests: number;
  retries: number;
  rejected: number;
  bytesSent: number;
  inFlightSinceMs?: number;
  lastDeliveryMs?: number;
  lastError?: string;
  nextAttemptMs?: number;
  /** Reports (report()) written, and when the last one was. */
  reports: number;
  lastReportMs?: number;
  /** Devices held by a refusal the operator can fix, in the order they were held. */
  held: Held[];
}

export interface Delivery {
  device: string;
  /** Records the write carried, and the last one's seq. */
  count: number;
  lastSeq: number;
  /**
   * What was sent: the stamped payload, or a JSON array of them. Only where
   * the uplink was asked to keep it (keepBody): otherwise it is let go once
   * written, not held through the reply.
   */
  body?: string;
  status: number;
}

export interface Uplink {
  /** Something was queued: send it unless a request or a backoff is pending. Reads no `this`. */
  wake(this: void): void;
  /**
   * A JSON write outside the outbox (the agent's health): the latest one
   * wins, it waits in RAM only, and goes when no reading is queued.
   */
  report(dev: DeviceRef, json: string): void;
  stop(): void;
  stats(): UplinkStats;
  /**
   * Outputs whose sources are read here (src/agent/outputs.ts, which sets
   * this): after readings and the report, one read at a time, with the same
   * checks, link ladder and backoff.
   */
  reads?: Outputs;
}

export function backoffMs(attempt: number, baseMs: number, capMs: number, random: () => number): number {
  const ceiling = Math.min(capMs, baseMs * Math.pow(2, Math.min(attempt - 1, 20)));
  // Full jitter: many nodes behind one access point do not retry in step.
  return Math.floor(ceiling / 2 + (random() * ceiling) / 2);
}

export function createUplink(o: {
  queue: Queue;
  writer: Writer;
  devices: DeviceConfig[];
  apiKey: string;
  bootId: number;
  link: Link;
  time: TimeKeeper;
  clock: Clock;
  timers: Timers;
  log: Log;
  backoff: { baseMs: number; capMs: number };
  random?: () => number;
  /** Free-heap check before each request; a reason string stops the request. */
  canSend?: () => string | undefined;
  /** Radio off once the queue is empty (duty cycling). */
  sleepWhenIdle?: boolean;
  onDelivered?: (d: Delivery) => void;
  /** Keep each body for onDelivered (the host's dashboard): a batch's is 2.2 KB held through the reply. */
  keepBody?: boolean;
}): Uplink {
  const st: UplinkStats = { sent: 0, delivered: 0, requests: 0, retries: 0, rejected: 0, bytesSent: 0, reports: 0, held: [] };
  let side: { dev: DeviceRef; json: string } | undefined;
  const random = o.random || Math.random;
  let busy = false;
  let stopped = false;
  let timer: TimerId | undefined;
  let attempt = 0;
  let singleOnly = false;
  let idleTimer: TimerId | undefined;

  function later(ms: number): void {
    st.nextAttemptMs = o.clock.uptimeMs() + ms;
    timer = o.timers.setTimeout(() => {
      timer = undefined;
      st.nextAttemptMs = undefined;
      void pump();
    }, ms);
  }

  function heldOf(device: string): Held | undefined {
    for (let i = 0; i < st.held.length; i++) if ((st.held[i] as Held).device === device) return st.held[i];
    return undefined;
  }

  /** Held, and its next try not due yet. */
  function waits(device: string, now: number): boolean {
    const h = heldOf(device);
    return !!h && h.nextMs > now;
  }

  /** The device is held (again): logged when it starts or its reason changes, not per try. */
  function hold(device: string, r: { reason: string; status?: number }): void {
    let h = heldOf(device);
    const now = o.clock.uptimeMs();
    if (!h || h.reason !== r.reason) o.log.error('uplink: device ' + device + ' held, its readings wait: ' + r.reason);
    if (!h) st.held.push((h = { device, reason: r.reason, status: r.status, sinceMs: now, attempt: 0, nextMs: now }));
    h.reason = r.reason;
    h.status = r.status;
    h.nextMs = now + backoffMs(++h.attempt, o.backoff.baseMs, U.HoldCapMs, random);
  }

  function release(device: string): void {
    const h = heldOf(device);
    if (!h) return;
    st.held.splice(st.held.indexOf(h), 1);
    o.log.info('uplink: device ' + device + ' delivers again after ' + Math.round((o.clock.uptimeMs() - h.sinceMs) / 1000) + ' s held');
  }

  /**
   * The record to send next and the queue it heads: a lane's head first (the
   * oldest of those whose device is not waiting), else the outbox's head.
   * An outbox head whose device waits, or still has a lane, is moved to that
   * device's lane while any device can be sent to (0: pick again). Undefined
   * when nothing can go now: a held device is tried again at the first wake
   * (a reading queued, a report, a read) after its next try is due.
   */
  function pick(now: number): { q: Queue; head: QueueRecord } | 0 | undefined {
    const box = o.queue;
    let best: { q: Queue; head: QueueRecord } | undefined;
    const names = box.lanes ? box.lanes() : [];
    for (let i = 0; i < names.length; i++) {
      const n = names[i] as string;
      const l = waits(n, now) ? undefined : (box.lane as NonNullable<Queue['lane']>)(n);
      const h = l ? l.peek(1)[0] : undefined;
      if (l && h && (!best || h.seq < best.head.seq)) best = { q: l, head: h };
    }
    if (best) return best;
    const head = box.peek(1)[0];
    if (!head || (!waits(head.device, now) && names.indexOf(head.device) < 0)) return head ? { q: box, head } : undefined;
    let free = false;
    for (let i = 0; i < o.devices.length && !free; i++) free = !waits((o.devices[i] as DeviceConfig).name, now);
    const l = free && box.lane ? box.lane(head.device, true) : undefined;
    if (!l || !l.push(head)) return undefined;
    box.ack(1);
    return 0;
  }

  // One function does the whole send (the head, its batch, the write, the
  // outcome): on the device's engine each function is ~77 B of bytecode
  // plus an object per instance, so the single-use helpers are inlined.
  async function pump(): Promise<void> {
    if (busy || stopped || timer !== undefined) return;
    busy = true;
    try {
      // The head alone first: only a batching device's write needs more, and
      // every record read is decoded onto the heap (20 of them for a value
      // write, while a backlog drains, before this read was split).
      const picked = pick(o.clock.uptimeMs());
      if (picked === 0) return later(0);
      const q = picked ? picked.q : o.queue;
      const head = picked ? picked.head : undefined;
      // Readings first: a report goes only when none is queued, through the
      // same heap and link checks, outcome and backoff, never onto flash.
      const rep = head ? undefined : side;
      // Then an output's source, when a read is due: never while a backlog
      // drains, and a reading queued meanwhile waits for this one request.
      const outs = head || rep ? undefined : me.reads;
      if (!head && !rep && !(outs && outs.due)) {
        attempt = 0;
        // Records of one sample group arrive a few ms apart: switch the radio
        // off only once the queue stayed empty for a moment (2 s).
        if (o.sleepWhenIdle && idleTimer === undefined) {
          idleTimer = o.timers.setTimeout(() => {
            idleTimer = undefined;
            if (!busy && !stopped && !o.queue.peek(1).length) void o.link.sleep();
          }, 2000);
        }
        return;
      }
      let dev: DeviceConfig | undefined;
      if (head) {
        for (const d of o.devices) {
          if (d.name === head.device) {
            dev = d;
            break;
          }
        }
      }
      if (head && !dev) {
        q.reject('device ' + head.device + ' is no longer configured');
        st.rejected++;
        // Nothing awaited yet: not stopped. No timer is ever set while busy.
        return later(0);
      }
      const blocked = o.canSend ? o.canSend() : undefined;
      if (blocked) {
        st.lastError = blocked;
        o.log.error('uplink: ' + blocked);
        return later(backoffMs(++attempt, o.backoff.baseMs, o.backoff.capMs, random));
      }
      if (!(await o.link.ensureUp())) {
        st.lastError = 'Wi-Fi link down: ' + o.link.stats().lastStep;
        return later(backoffMs(++attempt, o.backoff.baseMs, Math.min(o.backoff.capMs, LINK_CHECK_MAX_MS), random));
      }
      let r: WriteOutcome;
      if (rep || outs) {
        st.requests++;
        st.inFlightSinceMs = o.clock.uptimeMs();
        // The outputs log their own failures (when one differs from the last).
        r = rep ? await o.writer.writeJson(rep.dev, rep.json, true) : await (outs as Outputs).read();
        st.inFlightSinceMs = undefined;
        st.bytesSent += r.bytesSent;
        if (stopped) return;
        if (rep && r.kind !== 'ok') st.lastError = r.reason;
        if (r.kind !== 'retry') {
          if (side === rep) side = undefined;
          attempt = 0;
          if (r.kind === 'ok') {
            if (rep) {
              st.reports++;
              st.lastReportMs = o.clock.uptimeMs();
            }
            o.link.succeeded();
          } else if (rep) o.log.error('uplink: report rejected: ' + r.reason);
          return later(0);
        }
      } else {
        if (!head || !dev) return;
        // The batch is read once the link is up, not before: joining Wi-Fi can
        // take many seconds, and the records (20 decoded ones are ~4 KB on the
        // device's heap) would sit there all that time. A head that went away
        // meanwhile (a full outbox drops the oldest) starts the choice over.
        // JSON devices with batch > 1 send the head's run of their records.
        const size = dev.format === 'JSON' && !singleOnly && dev.batch && dev.batch > 1 ? dev.batch : 1;
        let recs: QueueRecord[] | undefined = size > 1 ? q.peek(size) : [head];
        let n = 1;
        while (n < recs.length && (recs[n] as QueueRecord).device === dev.name) n++;
        const first = recs[0];
        if (!first || first.seq !== head.seq) {
          if (!stopped) later(0);
          return;
        }
        // They are let go once their payloads are joined: only their count and
        // last seq are needed while the write is under way.
        const lastSeq = (recs[n - 1] as QueueRecord).seq;
        const droppedBefore = o.queue.stats().dropped;
        const parts: string[] = [];
        for (let i = 0; i < n; i++) {
          const q = recs[i] as QueueRecord;
          // Each decoded record goes once its payload is stamped: holding all
          // 20 until the last one was stamped was 3.3 KB more on the device's
          // heap at a drain's highest.
          (recs as (QueueRecord | undefined)[])[i] = undefined;
          // Readings of an earlier boot can only be dated if they were dated then.
          const wall = q.wallMs !== undefined ? q.wallMs : q.bootId === o.bootId ? o.time.wallAt(q.uptimeMs) : undefined;
          parts.push(stampPayload(dev.format, q.payload, wall));
        }
        recs = undefined;
        // The brackets go on the ends, so the batch is joined once, not copied again.
        if (n > 1) {
          parts[0] = '[' + parts[0];
          parts[n - 1] += ']';
        }
        let body = parts.join(',');
        // This frame lives while the write is under way: let the pieces go.
        parts.length = 0;
        const ref = { apiKey: o.apiKey, deviceId: dev.deviceId, devicePin: dev.devicePin };
        st.requests++;
        st.inFlightSinceMs = o.clock.uptimeMs();
        const sent =
          dev.format === 'Value' ? o.writer.writeValue(ref, body)
            : dev.format === 'JSON' ? o.writer.writeJson(ref, body, true)
              : o.writer.writeXml(ref, body, true);
        // The writer has it (the socket, once written): not held through the
        // reply, where a drain's live set is at its highest (1.7 KB less there).
        const kept = o.keepBody ? body : undefined;
        body = '';
        r = await sent;
        st.inFlightSinceMs = undefined;
        st.bytesSent += r.bytesSent;
        if (stopped) return;
        // While the request was in flight a full outbox may have dropped some of
        // the records it carried: only those still at the head are acknowledged
        // (or rejected), so a newer record is never released unsent.
        let k = n;
        if ((r.kind === 'ok' || (r.kind === 'reject' && n === 1)) && o.queue.stats().dropped !== droppedBefore) {
          const still = q.peek(n);
          k = 0;
          while (k < still.length && (still[k] as QueueRecord).seq <= lastSeq) k++;
        }
        if (r.kind === 'ok') {
          if (k < n) o.queue.undrop(n - k);
          q.ack(k);
          release(dev.name);
          attempt = 0;
          singleOnly = false;
          st.sent++;
          st.delivered += n;
          st.lastDeliveryMs = o.clock.uptimeMs();
          o.link.succeeded();
          o.time.fromHttpDate(r.date);
          if (o.onDelivered) o.onDelivered({ device: dev.name, count: n, lastSeq, body: kept, status: r.status });
          return later(0);
        }
        st.lastError = r.reason;
        if (r.kind === 'hold') {
          // Nothing is dropped: the device waits, the others go on.
          hold(dev.name, r);
          return later(0);
        }
        if (r.kind === 'reject') {
          if (n > 1) {
            // One record of the batch may be the bad one: find it alone.
            singleOnly = true;
            return later(0);
          }
          if (k) q.reject(r.reason);
          st.rejected++;
          o.log.error('uplink: seq ' + head.seq + ' rejected: ' + r.reason);
          return later(0);
        }
      }
      st.retries++;
      await o.link.failed();
      const wait = r.retryAfterMs !== undefined ? r.retryAfterMs : backoffMs(++attempt, o.backoff.baseMs, o.backoff.capMs, random);
      o.log.error('uplink: ' + r.reason + '; retry in ' + Math.round(wait / 1000) + ' s');
      later(wait);
    } catch (e) {
      st.lastError = 'uplink bug: ' + String(e);
      o.log.error(st.lastError);
      if (!stopped && timer === undefined) later(o.backoff.baseMs);
    } finally {
      busy = false;
    }
  }

  const me: Uplink = {
    wake() {
      if (idleTimer !== undefined) o.timers.clearTimeout(idleTimer);
      idleTimer = undefined;
      void pump();
    },
    stop() {
      stopped = true;
      if (idleTimer !== undefined) o.timers.clearTimeout(idleTimer);
      if (timer !== undefined) o.timers.clearTimeout(timer);
      timer = undefined;
    },
    report(dev, json) {
      side = { dev, json };
      if (idleTimer !== undefined) o.timers.clearTimeout(idleTimer);
      idleTimer = undefined;
      void pump();
    },
    stats: () => st,
  };
  return me;
}
