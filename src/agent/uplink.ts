// Drains the outbox in order, one request in flight: ok acknowledges, retry
// backs off, reject sets the record aside so one bad record never blocks the
// queue, hold moves the device's records to its lane so the other devices go on.
import type { DeviceConfig } from '../model';
import type { Clock, Log, TimerId, Timers } from '../ports/ports';
import type { DeviceRef } from '../service/client';
import { LINK_CHECK_MAX_MS } from './link';
import type { Link } from './link';
import type { Outbox as Queue, OutboxRecord as QueueRecord } from '../queue/types';
import type { heldPicker, Picked, Picker } from './held';
import type { ColdLoader } from '../cold';
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

// A const enum is inlined by the build; a module-level const stays on the heap.
const enum U {
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
  /** What was sent (a payload, or a JSON array of them), only with keepBody. */
  body?: string;
  status: number;
}

/**
 * Work that shares the uplink with the readings (the health report, the
 * outputs' reads): when no reading can go, the first job that is `due` is
 * run, one request at a time, through the same heap and link checks; its
 * outcome drives the backoff as a write's does. A job logs its own failures.
 */
export interface Job {
  /** Something to send now (a field, not a function: kept by the job itself). */
  due: boolean;
  run(): Promise<WriteOutcome>;
}

export interface Uplink {
  /** Something was queued: send it unless a request or a backoff is pending. Reads no `this`. */
  wake(this: void): void;
  /**
   * A JSON write outside the outbox (the agent's health): the latest one
   * wins, it waits in RAM only, and goes when no reading is queued.
   */
  report(dev: DeviceRef, json: string): void;
  /** A job joins (after the report, in the order added), and wakes the uplink; remove() takes it out. */
  add(job: Job): void;
  remove(job: Job): void;
  stop(): void;
  stats(this: void): UplinkStats;
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
  /** Keep each body for onDelivered (the host's dashboard); it is then held through the reply. */
  keepBody?: boolean;
  /** Loads cold code by name: here the held devices' lanes ('held'). */
  load?: ColdLoader['load'];
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
    loadDue = true;
    if (!h) st.held.push((h = { device, reason: r.reason, status: r.status, sinceMs: now, attempt: 0, nextMs: now }));
    else {
      h.reason = r.reason;
      h.status = r.status;
    }
    h.nextMs = now + backoffMs(++h.attempt, o.backoff.baseMs, U.HoldCapMs, random);
  }

  function release(device: string): void {
    const h = heldOf(device);
    if (!h) return;
    st.held.splice(st.held.indexOf(h), 1);
    o.log.info('uplink: device ' + device + ' delivers again after ' + Math.round((o.clock.uptimeMs() - h.sinceMs) / 1000) + ' s held');
  }

  /** The held devices' code (cold module 'held'), once loaded. */
  let picker: Picker | undefined;
  /** A load is due: at the start, and again at each refusal after a failed one (not at every wake: a load reads flash). */
  let loadDue = true;
  /** The last failed load's reason, without its figures in brackets (the free heap changes at every try): logged when it changes. */
  let loadError: string | undefined;

  /**
   * The record to send next and the queue it heads (0: pick again; undefined:
   * nothing can go now): the outbox's head unless its device waits, or, with
   * lanes, the held code's choice (src/agent/held.ts).
   */
  function pick(now: number): Picked {
    const box = o.queue;
    // Lanes already in place (an agent before this one on the same outbox) or on flash from an earlier boot need it too.
    if (!picker && loadDue && o.load && (st.held.length || box.lanes || (box.found && box.found.length))) {
      loadDue = false;
      const m = o.load<typeof heldPicker>('held');
      if (m.ok) picker = m.value(box, o.devices, waits);
      else if (m.error.split(' (')[0] !== loadError) o.log.error('uplink: ' + m.error + '; a held device holds the others up');
      if (!m.ok) loadError = m.error.split(' (')[0];
    }
    if (picker) return picker(now);
    const head = box.peek(1)[0];
    return head && !waits(head.device, now) ? { q: box, head } : undefined;
  }

  /** The configured device a record is for, or undefined when it is no longer configured. */
  function deviceOf(name: string): DeviceConfig | undefined {
    for (let i = 0; i < o.devices.length; i++) if ((o.devices[i] as DeviceConfig).name === name) return o.devices[i];
    return undefined;
  }

  /** Nothing to send: the backoff starts over, and the radio goes off once the queue stayed empty for a moment. */
  function idle(): void {
    attempt = 0;
    // A sample group's records arrive a few ms apart.
    if (o.sleepWhenIdle && idleTimer === undefined) {
      idleTimer = o.timers.setTimeout(() => {
        idleTimer = undefined;
        if (!busy && !stopped && !o.queue.peek(1).length) void o.link.sleep();
      }, 2000);
    }
  }

  /** The heap and the link allow a request now; otherwise the backoff is set and false. */
  async function ready(): Promise<boolean> {
    const blocked = o.canSend ? o.canSend() : undefined;
    if (blocked) {
      st.lastError = blocked;
      o.log.error('uplink: ' + blocked);
      later(backoffMs(++attempt, o.backoff.baseMs, o.backoff.capMs, random));
      return false;
    }
    if (await o.link.ensureUp()) return true;
    st.lastError = 'Wi-Fi link down: ' + o.link.stats().lastStep;
    later(backoffMs(++attempt, o.backoff.baseMs, Math.min(o.backoff.capMs, LINK_CHECK_MAX_MS), random));
    return false;
  }

  /** One request (a write or a job's), counted; undefined when the uplink stopped meanwhile. */
  async function request(sent: Promise<WriteOutcome>): Promise<WriteOutcome | undefined> {
    st.requests++;
    st.inFlightSinceMs = o.clock.uptimeMs();
    const r = await sent;
    st.inFlightSinceMs = undefined;
    st.bytesSent += r.bytesSent;
    return stopped ? undefined : r;
  }

  /**
   * Writes `head` (and a batching JSON device's run of records behind it) and
   * settles them by the outcome; returns a retry for pump() to back off on.
   */
  async function send(q: Queue, head: QueueRecord, dev: DeviceConfig): Promise<WriteOutcome | undefined> {
    // Read once the link is up: decoded records would sit on the heap through
    // a join. A head that went away meanwhile (a full outbox) starts over.
    const size = dev.format === 'JSON' && !singleOnly && dev.batch && dev.batch > 1 ? dev.batch : 1;
    let recs: QueueRecord[] | undefined = size > 1 ? q.peek(size) : [head];
    let n = 1;
    while (n < recs.length && (recs[n] as QueueRecord).device === dev.name) n++;
    const first = recs[0];
    if (!first || first.seq !== head.seq) return undefined;
    // The records go once joined; the write needs only their count and last seq.
    const lastSeq = (recs[n - 1] as QueueRecord).seq;
    const droppedBefore = o.queue.stats().dropped;
    const parts: string[] = [];
    for (let i = 0; i < n; i++) {
      const rec = recs[i] as QueueRecord;
      // Each decoded record goes once its payload is stamped: a drain's peak is here.
      (recs as (QueueRecord | undefined)[])[i] = undefined;
      // Readings of an earlier boot can only be dated if they were dated then.
      const wall = rec.wallMs !== undefined ? rec.wallMs : rec.bootId === o.bootId ? o.time.wallAt(rec.uptimeMs) : undefined;
      parts.push(stampPayload(dev.format, rec.payload, wall));
    }
    recs = undefined;
    // The brackets go on the ends, so the batch is joined once, not copied again.
    if (n > 1) {
      parts[0] = '[' + parts[0];
      parts[n - 1] += ']';
    }
    let body = parts.join(',');
    // This frame lives through the write: let the pieces go.
    parts.length = 0;
    const ref = { apiKey: o.apiKey, deviceId: dev.deviceId, devicePin: dev.devicePin };
    const sent = dev.format === 'Value' ? o.writer.writeValue(ref, body) : dev.format === 'JSON' ? o.writer.writeJson(ref, body, true) : o.writer.writeXml(ref, body, true);
    // The writer has it: not held through the reply, where a drain's live set is at its highest.
    const kept = o.keepBody ? body : undefined;
    body = '';
    const r = await request(sent);
    if (r && r.kind !== 'ok') st.lastError = r.reason;
    if (!r || r.kind === 'retry') return r;
    // A full outbox may have dropped some of them meanwhile: settle only those
    // still at the head, so a newer record is never released unsent.
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
      return undefined;
    }
    // Held: nothing is dropped, the device waits, the others go on.
    if (r.kind === 'hold') hold(dev.name, r);
    // One record of a batch may be the bad one: find it alone.
    else if (n > 1) singleOnly = true;
    else {
      if (k) q.reject(r.reason);
      st.rejected++;
      o.log.error('uplink: seq ' + head.seq + ' rejected: ' + r.reason);
    }
    return undefined;
  }

  /** The health report, as a job of its own: the latest wins, it waits in RAM only. */
  const reportJob: Job = {
    due: false,
    async run() {
      const rep = side as { dev: DeviceRef; json: string };
      const r = await o.writer.writeJson(rep.dev, rep.json, true);
      if (r.kind !== 'ok') st.lastError = r.reason;
      if (r.kind === 'retry') return r;
      if (side === rep) {
        side = undefined;
        reportJob.due = false;
      }
      if (r.kind === 'ok') {
        st.reports++;
        st.lastReportMs = o.clock.uptimeMs();
      } else o.log.error('uplink: report rejected: ' + r.reason);
      return r;
    },
  };
  /** The report first, then the jobs in the order they joined. */
  const jobs: Job[] = [reportJob];

  /**
   * The uplink's one loop, a turn per request: readings first (a lane's or
   * the outbox's head: pick()), then the first due job; the heap and link
   * checks; the request; a retry backs off, anything else goes on at once.
   */
  async function pump(): Promise<void> {
    if (busy || stopped || timer !== undefined) return;
    busy = true;
    try {
      const picked = pick(o.clock.uptimeMs());
      if (picked === 0) return later(0);
      let job: Job | undefined;
      for (let i = 0; i < jobs.length && !picked && !job; i++) if ((jobs[i] as Job).due) job = jobs[i];
      if (!picked && !job) return idle();
      const dev = picked ? deviceOf(picked.head.device) : undefined;
      if (picked && !dev) {
        picked.q.reject('device ' + picked.head.device + ' is no longer configured');
        st.rejected++;
        // Nothing awaited yet: not stopped. No timer is ever set while busy.
        return later(0);
      }
      if (!(await ready())) return;
      const r = picked ? await send(picked.q, picked.head, dev as DeviceConfig) : await request((job as Job).run());
      if (stopped) return;
      if (!r || r.kind !== 'retry') {
        if (r) {
          attempt = 0;
          if (r.kind === 'ok') o.link.succeeded();
        }
        return later(0);
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
      reportJob.due = true;
      me.wake();
    },
    add(job) {
      jobs.push(job);
      me.wake();
    },
    remove(job) {
      const i = jobs.indexOf(job);
      if (i > 0) jobs.splice(i, 1);
    },
    stats: () => st,
  };
  return me;
}
