// Outputs driven by a value stored at the service (config `output.<name>`):
// a relay, a vent, a lamp follows a Value device's stored value, or a field
// of a JSON device. Each output's source is read every pollMs through the
// uplink (one request in flight, only while no reading is queued, the same
// heap check, link ladder and backoff): a stuck or failing source never
// holds up sampling or delivery.
//
// Values are taken strictly (src/agent/output-read.ts): anything else is
// refused and counted, and the output keeps its level. The pin is written
// only when the accepted value changes, and each change is logged with its
// old and new level. At boot, and after failsafeMs without an accepted
// value, the output holds its safe level.
//
// Cold code in two parts. This one (the cold module 'outputs') holds the pins,
// the state, the timer and the failsafe: loaded once the agent runs on a
// board with outputs, and kept while they run. A read's code (the request,
// the parse, the refusal) is the cold module 'output-read', loaded for each read
// and let go: on the device's engine code costs its bytecode for as long as
// it is loaded. The failsafe needs no load, so an output reaches its safe
// level even when the heap is too short to load the read.
import type { AgentConfig, OutputConfig } from '../config/types';
import type { DigitalOut, Platform, PwmOut, TimerId } from '../ports/ports';
import type { ServiceClient } from '../service/client';
import type { ColdLoader } from '../cold';
import type { Job, Uplink, WriteOutcome } from './uplink';

/** A level as a person reads it: on/off, or a duty in percent. */
export const show = (c: OutputConfig, v: number): string => (c.kind === 'pwm' ? Math.round(v * 1000) / 10 + '%' : v ? 'on' : 'off');

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

/**
 * The running outputs: a job of the uplink's (src/agent/uplink.ts): `due`
 * is kept by the outputs' own timer, run() reads the most overdue output's
 * source and applies what it holds.
 */
export interface Outputs extends Job {
  /** Takes the job out of the uplink, stops the timer, closes the pins. */
  stop(): void;
  /** Every output, in the order of the config. */
  list: OutputState[];
}

/** One output as the outputs' code keeps it. */
export interface Slot extends OutputState {
  /** The pin's driver. */
  o: DigitalOut | PwmOut;
  /** Uptime of the next read. */
  at: number;
}

/** What a read (src/agent/output-read.ts) uses of the running outputs. */
export interface OutputsInside extends Outputs {
  /** Stopped: a read that returns after stop() changes nothing. */
  off?: boolean;
  /** Sets the output's level: the pin is written, and the change logged, only when it differs. */
  drive(s: Slot, v: number, why: string): void;
  /** Sets the outputs' timer again (after a read: the next one, or the failsafe). */
  arm(): void;
}

/** One read of an output's source and what it does to the output: the cold module 'output-read' (src/agent/output-read.ts). */
export type ReadSource = (x: OutputsInside, s: Slot, p: Pick<Platform, 'clock' | 'log'>, client: Pick<ServiceClient, 'call'>, key: string) => Promise<WriteOutcome>;

/** Loads cold code by name (the cold loader's load()): here the read's, 'output-read'. */
export type LoadCold = ColdLoader['load'];

// On the device's engine every function costs its bytecode (~77 B and up)
// for as long as outputs run: single-use helpers are written inline. The
// module keeps its strings in the code ("kept" in src/residency.json): it
// stays loaded while outputs run.

/**
 * Starts the outputs of `config` as a job of the uplink `up`, their reads
 * made with `client`. The cold module's default export, so that the
 * resident program carries none of this. `load` brings a read's code for
 * each read. An error line when a pin is refused: the agent goes on
 * without outputs.
 */
export function startOutputs(up: Pick<Uplink, 'add' | 'remove' | 'wake'>, client: Pick<ServiceClient, 'call'>, config: Pick<AgentConfig, 'outputs' | 'service'>, p: Pick<Platform, 'pins' | 'clock' | 'timers' | 'log'>, load: LoadCold): Outputs | string {
  const cs = config.outputs;
  const all: Slot[] = [];
  let timer: TimerId | undefined;

  const x: OutputsInside = {
    // Every output is read at once after the start.
    due: true,
    list: all,
    // The pin is written only when the level changes (and once at the start).
    drive(s, v, why) {
      if (v === s.level) return;
      // The first: `GP16 -> off (safe level until the first good read)`.
      p.log.info('output ' + s.c.name + ': ' + (s.level < 0 ? 'GP' + s.c.pin : show(s.c, s.level)) + ' -> ' + show(s.c, v) + ' (' + why + ')');
      s.level = v;
      if (s.c.kind === 'pwm') (s.o as PwmOut).duty(v, s.c.freqHz || 1000);
      else (s.o as DigitalOut).write(!!v !== !!s.c.invert);
    },
    // The failsafe clock, and the next read: one timer for all outputs, set
    // for the nearest of them. An overdue read needs none: the uplink reads
    // once the queue is empty, and each read sets the timer again.
    arm() {
      if (timer !== undefined) p.timers.clearTimeout(timer);
      timer = undefined;
      if (x.off) return;
      const t = p.clock.uptimeMs();
      let next = Infinity;
      let due = false;
      for (let i = 0; i < all.length; i++) {
        const s = all[i] as Slot;
        const end = (s.goodAt as number) + s.c.failsafeMs;
        if (!s.safe && t >= end) {
          s.safe = true;
          p.log.error('output ' + s.c.name + ': no good read for ' + Math.round((t - (s.goodAt as number)) / 1000) + ' s: failsafe');
          x.drive(s, s.c.safe, 'failsafe');
        }
        if (!s.safe && end < next) next = end;
        if (s.at <= t) due = true;
        else if (s.at < next) next = s.at;
      }
      if (next < Infinity) {
        timer = p.timers.setTimeout(() => {
          // Not cleared from inside its own callback (Kaluma 1.2.1's timer bug).
          timer = undefined;
          x.arm();
        }, next - t);
      }
      x.due = due;
      if (due) up.wake();
    },
    // The most overdue output's source, by the read's code: loaded now and
    // let go once its answer is applied.
    run() {
      let s = all[0] as Slot;
      for (let i = 1; i < all.length; i++) if ((all[i] as Slot).at < s.at) s = all[i] as Slot;
      s.at = p.clock.uptimeMs() + s.c.pollMs;
      const m = load<ReadSource>('output-read');
      if (m.ok) return m.value(x, s, p, client, config.service.apiKey);
      // Not loaded (the heap short, or the code not on flash): a failed
      // read, retried with the uplink's backoff; the failsafe still runs.
      // Logged in full when its reason differs from the last failure's,
      // which is kept without the figures in brackets (the free heap
      // changes at every try).
      s.failures++;
      const e = m.error.split(' (')[0] as string;
      if (e !== s.lastError) p.log.error('output ' + s.c.name + ': ' + m.error);
      s.lastError = e;
      x.arm();
      return Promise.resolve<WriteOutcome>({ kind: 'retry', reason: m.error, bytesSent: 0 });
    },
    stop() {
      up.remove(x);
      x.off = true;
      x.arm();
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
      x.drive(s, c.safe, 'safe level until the first good read');
      all.push(s);
    }
  } catch (e) {
    for (let i = 0; i < all.length; i++) (all[i] as Slot).o.close();
    return String(e);
  }
  up.add(x);
  return x;
}
