// Outputs driven by a value stored at the service (config `output.<name>`):
// a relay, a vent, a lamp follows a Value device's stored value, or a field
// of a JSON device. Each output's source is read every pollMs through the
// uplink (one request in flight, only while no reading is queued, the same
// heap check, link ladder and backoff): a stuck or failing source never
// holds up sampling or delivery.
//
// Values are taken strictly: digital 0/1, on/off, true/false (any case,
// trimmed; a JSON boolean or 0/1 number too); pwm a number whose value /
// scale is a duty 0..1. Anything else is refused and counted, logged once
// per distinct value, and the output keeps its level. The pin is written
// only when the accepted value changes, and each change is logged with its
// old and new level. At boot, and after failsafeMs without an accepted
// value, the output holds its safe level.
//
// Its own part of the program (src/parts.ts): a board with no output
// configured lets this code go at boot.
import type { OutputConfig } from '../config/types';
import type { Clock, DigitalOut, Log, Pins, PwmOut, TimerId, Timers } from '../ports/ports';
import type { ServiceClient } from '../service/client';
import { devSegments, maskSecret } from '../service/client';
import type { Found } from '../service/parse';
import { describeBody, errorSignal } from '../service/parse';
import type { WriteOutcome } from './uplink';

/** One output, as status() and the health report show it. */
export interface OutputState {
  readonly c: OutputConfig;
  /** The level (digital 0/1) or duty (pwm) the pin holds. */
  level: number;
  /** Holding the safe level: at boot until the first accepted value, or after failsafeMs without one. */
  safe: boolean;
  /** Uptime of the last accepted value; undefined before the first. */
  goodAt?: number;
  /** Reads answered, reads that failed, values refused. */
  reads: number;
  failures: number;
  refused: number;
  /** The last failure or refusal, secrets masked. */
  lastError?: string;
}

/** What the uplink asks of the outputs. */
export interface Outputs {
  /** A read is due. */
  due(): boolean;
  /** Reads the most overdue output's source and applies what it holds. */
  read(): Promise<WriteOutcome>;
  stop(): void;
  list(): OutputState[];
}

interface Slot extends OutputState {
  /** The pin's driver. */
  o: DigitalOut | PwmOut;
  /** Uptime of the next read. */
  at: number;
  /** Refused values already logged (the last 4). */
  seen: string[];
}

/** A level as a person reads it: on/off, or a duty in percent. */
const show = (s: Slot, v: number): string => (s.c.kind === 'pwm' ? Math.round(v * 1000) / 10 + '%' : v ? 'on' : 'off');

/**
 * The level `raw` asks for, or why it is refused. Strings are trimmed;
 * nothing is guessed: '1.0' is not a digital level, '50%' not a duty.
 */
export function levelOf(c: OutputConfig, raw: unknown): number | string {
  let t = typeof raw === 'string' ? raw.trim().toLowerCase() : raw;
  if (c.kind === 'digital') {
    if (t === true || t === 1 || t === '1' || t === 'on' || t === 'true') return 1;
    if (t === false || t === 0 || t === '0' || t === 'off' || t === 'false') return 0;
    return 'not a digital level (0/1, on/off, true/false)';
  }
  if (typeof t === 'string' && /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/.test(t)) t = Number(t);
  if (typeof t !== 'number' || !isFinite(t)) return 'not a number';
  const d = t / (c.scale || 1);
  return d >= 0 && d <= 1 ? d : 'duty ' + d + ' is outside 0..1';
}

/** A value as it may be logged: quoted and escaped (one line), short, a long word masked (it could be a key). */
function shown(raw: unknown): string {
  const s = typeof raw === 'string' ? raw : String(JSON.stringify(raw));
  if (s.length >= 12 && s.indexOf(' ') < 0) return maskSecret(s);
  const q = String(JSON.stringify(s));
  return q.length > 26 ? q.slice(0, 25) + '…' : q;
}

/**
 * A Value device's text: the bare text; a JSON string, number or boolean,
 * or an object's value/data field, are taken as what they hold (a service
 * may quote it). A JSON device's field: `a.b` walks nested objects.
 */
function pick(c: OutputConfig, body: string): Found<unknown> {
  const t = body.trim();
  let v: unknown = t;
  if (c.field || /^[{"[]/.test(t)) {
    try {
      v = t ? JSON.parse(t) : {};
    } catch {
      if (c.field) return { ok: false, error: 'invalid JSON', note: describeBody(body) };
    }
  }
  if (c.field) {
    const path = c.field.split('.');
    for (let i = 0; i < path.length; i++) {
      v = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[path[i] as string] : undefined;
    }
    return { ok: true, value: v === undefined ? undefined : v, note: '' };
  }
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    v = o.value !== undefined ? o.value : o.data !== undefined ? o.data : t;
  }
  // The value read carries the error rule of the spec; a JSON device's own data does not.
  const e = errorSignal(t);
  return e ? { ok: false, error: e, note: describeBody(body) } : { ok: true, value: v, note: '' };
}

export function createOutputs(o: {
  outputs: OutputConfig[];
  client: Pick<ServiceClient, 'call'>;
  apiKey: string;
  pins: Pins;
  clock: Clock;
  timers: Timers;
  log: Log;
  /** A read is due: the uplink sends it once no reading is queued. Reads no `this`. */
  wake: () => void;
}): Outputs {
  const now = o.clock.uptimeMs();
  const all: Slot[] = [];
  let timer: TimerId | undefined;
  let stopped = false;

  // The pin is written only when the level changes (and once at the start).
  function drive(s: Slot, v: number, why: string): void {
    if (v === s.level) return;
    if (s.level >= 0) o.log.info('output ' + s.c.name + ': ' + show(s, s.level) + ' -> ' + show(s, v) + ' (' + why + ')');
    s.level = v;
    if (s.c.kind === 'pwm') (s.o as PwmOut).duty(v);
    else (s.o as DigitalOut).write(!!v !== !!s.c.invert);
  }

  // The failsafe clock, and the next read: one timer for all outputs, set
  // for the nearest of them. An overdue read needs none: the uplink reads
  // once the queue is empty, and read() sets the timer again.
  function arm(): void {
    if (timer !== undefined) o.timers.clearTimeout(timer);
    timer = undefined;
    if (stopped) return;
    const t = o.clock.uptimeMs();
    let next = Infinity;
    let due = false;
    for (let i = 0; i < all.length; i++) {
      const s = all[i] as Slot;
      if (!s.safe && t - (s.goodAt as number) >= s.c.failsafeMs) {
        s.safe = true;
        o.log.error('output ' + s.c.name + ': no good read for ' + Math.round((t - (s.goodAt as number)) / 1000) + ' s; holding the safe level ' + show(s, s.c.safe));
        drive(s, s.c.safe, 'failsafe');
      }
      if (!s.safe && (s.goodAt as number) + s.c.failsafeMs < next) next = (s.goodAt as number) + s.c.failsafeMs;
      if (s.at <= t) due = true;
      else if (s.at < next) next = s.at;
    }
    if (next < Infinity) {
      timer = o.timers.setTimeout(() => {
        // Not cleared from inside its own callback (Kaluma 1.2.1's timer bug).
        timer = undefined;
        arm();
      }, next - t);
    }
    if (due) o.wake();
  }

  for (let i = 0; i < o.outputs.length; i++) {
    const c = o.outputs[i] as OutputConfig;
    const s: Slot = {
      c, level: -1, safe: true, reads: 0, failures: 0, refused: 0, seen: [], at: now,
      o: c.kind === 'pwm' ? o.pins.pwmOut(c.pin, c.freqHz || 1000) : o.pins.digitalOut(c.pin),
    };
    drive(s, c.safe, '');
    o.log.info('output ' + c.name + ': GP' + c.pin + ' holds ' + show(s, c.safe) + ' until the first good read');
    all.push(s);
  }

  return {
    due() {
      const t = o.clock.uptimeMs();
      for (let i = 0; i < all.length; i++) if ((all[i] as Slot).at <= t) return true;
      return false;
    },
    async read() {
      let s: Slot | undefined;
      for (let i = 0; i < all.length; i++) if (!s || (all[i] as Slot).at < s.at) s = all[i];
      if (!s) return { kind: 'reject', reason: 'no output', bytesSent: 0 };
      const c = s.c;
      s.at = o.clock.uptimeMs() + c.pollMs;
      const r = await o.client.call({
        op: c.field ? 'showdevicejson' : 'showdevicevalue',
        segments: devSegments({ apiKey: o.apiKey, deviceId: c.sourceId, devicePin: c.sourcePin }),
        secrets: [o.apiKey],
        read: (body) => pick(c, body),
      });
      if (stopped) return r;
      if (r.kind !== 'ok') {
        s.failures++;
        if (r.reason !== s.lastError) o.log.error('output ' + c.name + ': source not read: ' + r.reason);
        s.lastError = r.reason;
      } else {
        s.reads++;
        const v = levelOf(c, r.value);
        if (typeof v === 'number') {
          s.goodAt = o.clock.uptimeMs();
          s.safe = false;
          drive(s, v, 'source ' + c.sourceId);
        } else {
          s.refused++;
          const what = r.value === undefined ? 'no field ' + c.field : shown(r.value);
          s.lastError = 'refused ' + what + ': ' + v;
          if (s.seen.indexOf(what) < 0) {
            s.seen.push(what);
            if (s.seen.length > 4) s.seen.shift();
            o.log.error('output ' + c.name + ': ' + s.lastError + '; keeping ' + show(s, s.level));
          }
        }
      }
      arm();
      return r;
    },
    stop() {
      stopped = true;
      arm();
      for (let i = 0; i < all.length; i++) (all[i] as Slot).o.close();
    },
    list: () => all,
  };
}
