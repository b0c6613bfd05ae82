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
import type { AgentConfig, OutputConfig } from '../config/types';
import type { Clock, DigitalOut, Log, Pins, Platform, PwmOut, TimerId, Timers } from '../ports/ports';
import type { Agent } from './agent';
import type { ServiceClient } from '../service/client';
import { devSegments, maskSecret } from '../service/client';
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
  /** A read is due (kept by the outputs' own timer: no function to call). */
  due: boolean;
  /** Reads the most overdue output's source and applies what it holds. */
  read(): Promise<WriteOutcome>;
  stop(): void;
  /** Every output, in the order of the config. */
  list: OutputState[];
}

interface Slot extends OutputState {
  /** The pin's driver. */
  o: DigitalOut | PwmOut;
  /** Uptime of the next read. */
  at: number;
  /** Refused values already logged (the last 4). */
  seen: string[];
}

// On the device's engine every function costs its bytecode (~77 B and up)
// for as long as outputs run, and a regular expression literal its compiled
// form: single-use helpers are written inline, numbers are checked by hand.

/** A level as a person reads it: on/off, or a duty in percent. */
const show = (s: Slot, v: number): string => (s.c.kind === 'pwm' ? Math.round(v * 1000) / 10 + '%' : v ? 'on' : 'off');

/**
 * The level `raw` asks for, or why it is refused. Strings are trimmed;
 * nothing is guessed: '1.0' is not a digital level, '50%' or '0x10' not a duty.
 */
export function levelOf(c: OutputConfig, raw: unknown): number | string {
  let t = typeof raw === 'string' ? raw.trim().toLowerCase() : raw;
  if (c.kind === 'digital') {
    if (t === true || t === 1 || t === '1' || t === 'on' || t === 'true') return 1;
    if (t === false || t === 0 || t === '0' || t === 'off' || t === 'false') return 0;
    return 'not a digital level (0/1, on/off, true/false)';
  }
  // Number() alone would take '' as 0 and read hex, octal and binary.
  if (typeof t === 'string' && t && t.indexOf('x') < 0 && t.indexOf('o') < 0 && t.indexOf('b') < 0) t = Number(t);
  if (typeof t !== 'number' || !isFinite(t)) return 'not a number';
  const d = t / (c.scale || 1);
  return d >= 0 && d <= 1 ? d : 'duty ' + d + ' is outside 0..1';
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
  const all: Slot[] = [];
  let timer: TimerId | undefined;
  let stopped = false;

  // The pin is written only when the level changes (and once at the start).
  function drive(s: Slot, v: number, why: string): void {
    if (v === s.level) return;
    if (s.level >= 0) o.log.info('output ' + s.c.name + ': ' + show(s, s.level) + ' -> ' + show(s, v) + ' (' + why + ')');
    s.level = v;
    if (s.c.kind === 'pwm') (s.o as PwmOut).duty(v, s.c.freqHz || 1000);
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
      const end = (s.goodAt as number) + s.c.failsafeMs;
      if (!s.safe && t >= end) {
        s.safe = true;
        o.log.error('output ' + s.c.name + ': no good read for ' + Math.round((t - (s.goodAt as number)) / 1000) + ' s; holding the safe level ' + show(s, s.c.safe));
        drive(s, s.c.safe, 'failsafe');
      }
      if (!s.safe && end < next) next = end;
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
    api.due = due;
    if (due) o.wake();
  }

  const api: Outputs = {
    // Every output is read at once after the start.
    due: true,
    list: all,
    async read() {
      let s: Slot | undefined;
      for (let i = 0; i < all.length; i++) if (!s || (all[i] as Slot).at < s.at) s = all[i];
      const c = (s as Slot).c;
      (s as Slot).at = o.clock.uptimeMs() + c.pollMs;
      const r = await o.client.call({
        op: c.field ? 'showdevicejson' : 'showdevicevalue',
        segments: devSegments({ apiKey: o.apiKey, deviceId: c.sourceId, devicePin: c.sourcePin }),
        secrets: [o.apiKey],
        // A Value device's text as it is; a JSON string, number or boolean,
        // or an object's value/data field, as what they hold (a service may
        // quote it). A JSON device's field: `a.b` walks nested objects.
        read(body) {
          const t = body.trim();
          let v: unknown = t;
          const f = c.field;
          if (f || (t && '{"['.indexOf(t.charAt(0)) >= 0)) {
            try {
              v = t ? JSON.parse(t) : {};
            } catch {
              if (f) return { ok: false, error: 'invalid JSON', note: describeBody(body) };
            }
          }
          const path = f ? f.split('.') : ['value', 'data'];
          let w: unknown = v;
          for (let i = 0; i < path.length; i++) {
            const x = w !== null && typeof w === 'object' && !Array.isArray(w) ? (w as Record<string, unknown>)[path[i] as string] : undefined;
            // A value read takes the object's first of value, data (or the text).
            if (f) w = x;
            else if (x !== undefined) return { ok: true, value: x, note: '' };
          }
          if (f) return { ok: true, value: w, note: '' };
          // The value read carries the error rule of the spec; a JSON device's own data does not.
          const e = errorSignal(t);
          return e ? { ok: false, error: e, note: describeBody(body) } : { ok: true, value: v !== null && typeof v === 'object' ? t : v, note: '' };
        },
      });
      if (stopped) return r;
      const z = s as Slot;
      if (r.kind !== 'ok') {
        z.failures++;
        if (r.reason !== z.lastError) o.log.error('output ' + c.name + ': source not read: ' + r.reason);
        z.lastError = r.reason;
      } else {
        z.reads++;
        const v = levelOf(c, r.value);
        if (typeof v === 'number') {
          z.goodAt = o.clock.uptimeMs();
          z.safe = false;
          drive(z, v, 'source ' + c.sourceId);
        } else {
          z.refused++;
          // As logged: quoted and escaped (one line), short; a long word
          // masked, as it could be a key.
          const raw = r.value;
          let what = typeof raw === 'string' ? raw : String(JSON.stringify(raw));
          if (raw === undefined) what = 'no field ' + c.field;
          else if (what.length >= 12 && what.indexOf(' ') < 0) what = maskSecret(what);
          else {
            what = String(JSON.stringify(what));
            if (what.length > 26) what = what.slice(0, 25) + '…';
          }
          z.lastError = 'refused ' + what + ': ' + v;
          if (z.seen.indexOf(what) < 0) {
            z.seen.push(what);
            if (z.seen.length > 4) z.seen.shift();
            o.log.error('output ' + c.name + ': ' + z.lastError + '; keeping ' + show(z, z.level));
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
  };

  const now = o.clock.uptimeMs();
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
  return api;
}

/**
 * Gives the running agent its outputs: made over its service client, read
 * through its uplink, stopped with it. The cold module's default export, so
 * that the resident program carries none of this. `client`: the reads'
 * path (tests); the agent's own otherwise. An error line when a pin is
 * refused: the agent goes on without outputs.
 */
export function attachOutputs(agent: Agent, config: AgentConfig, p: Platform, client?: Pick<ServiceClient, 'call'>): string | undefined {
  if (agent.outputs || !config.outputs.length) return undefined;
  try {
    agent.outputs = agent.uplink.reads = createOutputs({
      outputs: config.outputs, client: client || agent.client, apiKey: config.service.apiKey, pins: p.pins, clock: p.clock, timers: p.timers, log: p.log,
      wake: agent.uplink.wake,
    });
  } catch (e) {
    return 'setup failed: ' + String(e);
  }
  agent.uplink.wake();
  return undefined;
}
