// Outputs driven by a value stored at the service (config `output.<name>`):
// a relay, a vent, a lamp follows a Value device's stored value, or a field
// of a JSON device. Each output's source is read every pollMs through the
// uplink (one request in flight, only while no reading is queued, the same
// heap check, link ladder and backoff): a stuck or failing source never
// holds up sampling or delivery.
//
// Values are taken strictly: digital 0/1, on/off, true/false (any case,
// trimmed; a JSON boolean or 0/1 number too); pwm a number whose value /
// scale is a duty 0..1. Anything else is refused and counted, logged when
// it differs from the last refusal or failure (a source stuck on one bad
// value logs it once), and the output keeps its level. The pin is written
// only when the accepted value changes, and each change is logged with its
// old and new level. At boot, and after failsafeMs without an accepted
// value, the output holds its safe level.
//
// Cold code (src/cold/outputs.ts): a board with no output configured never
// parses it; one with outputs loads it once the agent runs, and keeps it.
import type { AgentConfig, OutputConfig } from '../config/types';
import type { DigitalOut, Platform, PwmOut, TimerId } from '../ports/ports';
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
}

// On the device's engine every function costs its bytecode (~77 B and up)
// for as long as outputs run, and a regular expression literal its compiled
// form: single-use helpers are written inline, numbers are checked by hand.
// The module keeps its strings in the code (scripts/build.ts, KEPT_COLD):
// it stays loaded while outputs run.

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
    return 'not 0/1, on/off or true/false';
  }
  // Number() alone would take '' as 0 and read hex, octal and binary.
  if (typeof t === 'string' && t && t.indexOf('x') < 0 && t.indexOf('o') < 0 && t.indexOf('b') < 0) t = Number(t);
  if (typeof t !== 'number' || !isFinite(t)) return 'not a number';
  const d = t / (c.scale || 1);
  return d >= 0 && d <= 1 ? d : 'duty ' + d + ' is outside 0..1';
}

/**
 * Gives the running agent its outputs: read through its uplink (over its
 * service client, or `client` in tests), stopped with it. The cold module's
 * default export, so that the resident program carries none of this. Sets
 * `agent.outputs` and the uplink's `reads`; an error line when a pin is
 * refused: the agent goes on without outputs.
 *
 * One function, no options object: on the device's engine every function
 * and every object it keeps costs heap for as long as outputs run.
 */
export function attachOutputs(agent: Pick<Agent, 'outputs' | 'uplink' | 'client'>, config: Pick<AgentConfig, 'outputs' | 'service'>, p: Pick<Platform, 'pins' | 'clock' | 'timers' | 'log'>, client?: Pick<ServiceClient, 'call'>): string | undefined {
  const cs = config.outputs;
  if (agent.outputs || !cs.length) return undefined;
  const up = agent.uplink;
  const all: Slot[] = [];
  let timer: TimerId | undefined;
  let stopped = false;

  // The pin is written only when the level changes (and once at the start).
  function drive(s: Slot, v: number, why: string): void {
    if (v === s.level) return;
    // The first: `GP16 -> off (safe level until the first good read)`.
    p.log.info('output ' + s.c.name + ': ' + (s.level < 0 ? 'GP' + s.c.pin : show(s, s.level)) + ' -> ' + show(s, v) + ' (' + why + ')');
    s.level = v;
    if (s.c.kind === 'pwm') (s.o as PwmOut).duty(v, s.c.freqHz || 1000);
    else (s.o as DigitalOut).write(!!v !== !!s.c.invert);
  }

  // The failsafe clock, and the next read: one timer for all outputs, set
  // for the nearest of them. An overdue read needs none: the uplink reads
  // once the queue is empty, and read() sets the timer again.
  function arm(): void {
    if (timer !== undefined) p.timers.clearTimeout(timer);
    timer = undefined;
    if (stopped) return;
    const t = p.clock.uptimeMs();
    let next = Infinity;
    let due = false;
    for (let i = 0; i < all.length; i++) {
      const s = all[i] as Slot;
      const end = (s.goodAt as number) + s.c.failsafeMs;
      if (!s.safe && t >= end) {
        s.safe = true;
        p.log.error('output ' + s.c.name + ': no good read for ' + Math.round((t - (s.goodAt as number)) / 1000) + ' s: failsafe');
        drive(s, s.c.safe, 'failsafe');
      }
      if (!s.safe && end < next) next = end;
      if (s.at <= t) due = true;
      else if (s.at < next) next = s.at;
    }
    if (next < Infinity) {
      timer = p.timers.setTimeout(() => {
        // Not cleared from inside its own callback (Kaluma 1.2.1's timer bug).
        timer = undefined;
        arm();
      }, next - t);
    }
    api.due = due;
    if (due) up.wake();
  }

  const api: Outputs = {
    // Every output is read at once after the start.
    due: true,
    list: all,
    async read() {
      let s = all[0] as Slot;
      for (let i = 1; i < all.length; i++) if ((all[i] as Slot).at < s.at) s = all[i] as Slot;
      const c = s.c;
      s.at = p.clock.uptimeMs() + c.pollMs;
      const key = config.service.apiKey;
      const r = await (client || agent.client).call({
        op: c.field ? 'showdevicejson' : 'showdevicevalue',
        segments: devSegments({ apiKey: key, deviceId: c.sourceId, devicePin: c.sourcePin }),
        secrets: [key],
        // A Value device's text (the spec's bare text), trimmed, unless it
        // reads as an error (the spec's rule for replies); a JSON device's
        // field: `a.b` walks nested objects, an empty reply is {}.
        read(body) {
          const t = body.trim();
          const f = c.field;
          if (!f) {
            const e = errorSignal(t);
            return e ? { ok: false, error: e, note: describeBody(body) } : { ok: true, value: t, note: '' };
          }
          let v: unknown;
          try {
            v = JSON.parse(t || '{}');
          } catch {
            return { ok: false, error: 'invalid JSON', note: describeBody(body) };
          }
          const path = f.split('.');
          for (let i = 0; i < path.length; i++) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[path[i] as string] : undefined;
          return { ok: true, value: v, note: '' };
        },
      });
      if (stopped) return r;
      if (r.kind !== 'ok') {
        s.failures++;
        if (r.reason !== s.lastError) p.log.error('output ' + c.name + ': source not read: ' + r.reason);
        s.lastError = r.reason;
      } else {
        s.reads++;
        const v = levelOf(c, r.value);
        if (typeof v === 'number') {
          s.goodAt = p.clock.uptimeMs();
          s.safe = false;
          drive(s, v, 'source ' + c.sourceId);
        } else {
          s.refused++;
          // As logged: as JSON (quoted and escaped: one line); anything
          // longer than a short word masked, as it could be a key.
          const raw = r.value;
          let what = 'no field ' + c.field;
          if (raw !== undefined) {
            what = JSON.stringify(raw);
            if (what.length > 13) what = maskSecret(what);
          }
          // Logged when it differs from the last refusal or failure, like failures.
          const e = 'refused ' + what + ': ' + v;
          if (e !== s.lastError) p.log.error('output ' + c.name + ': ' + e + '; keeping ' + show(s, s.level));
          s.lastError = e;
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

  try {
    const now = p.clock.uptimeMs();
    for (let i = 0; i < cs.length; i++) {
      const c = cs[i] as OutputConfig;
      const s: Slot = {
        c, level: -1, safe: true, reads: 0, failures: 0, refused: 0, at: now,
        o: c.kind === 'pwm' ? p.pins.pwmOut(c.pin, c.freqHz || 1000) : p.pins.digitalOut(c.pin),
      };
      drive(s, c.safe, 'safe level until the first good read');
      all.push(s);
    }
  } catch (e) {
    return String(e);
  }
  agent.outputs = up.reads = api;
  up.wake();
  return undefined;
}
