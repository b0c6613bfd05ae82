// Outputs that follow a value stored at the service. Their reads are a job of
// the uplink, so a stuck source never holds up sampling or delivery. This
// part (pins, state, timer, failsafe) stays loaded; a read's code
// (output-read.ts) is loaded per read and let go, and the failsafe needs no
// load, so an output reaches its safe level even when the heap is short.
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

// Every function costs heap while outputs run: single-use helpers are inline.

/**
 * Starts the outputs of `config` as a job of the uplink `up`. An error line
 * when a pin is refused: the agent goes on without outputs.
 */
export function startOutputs(up: Pick<Uplink, 'add' | 'remove' | 'wake'>, client: Pick<ServiceClient, 'call'>, config: Pick<AgentConfig, 'outputs' | 'service'>, p: Pick<Platform, 'pins' | 'clock' | 'timers' | 'log'>, load: LoadCold): Outputs | string {
  const cs = config.outputs;
  const all: Slot[] = [];
  let timer: TimerId | undefined;

  const x: OutputsInside = {
    due: true,
    list: all,
    drive(s, v, why) {
      if (v === s.level) return;
      // The first: `GP16 -> off (safe level until the first good read)`.
      p.log.info('output ' + s.c.name + ': ' + (s.level < 0 ? 'GP' + s.c.pin : show(s.c, s.level)) + ' -> ' + show(s.c, v) + ' (' + why + ')');
      s.level = v;
      if (s.c.kind === 'pwm') (s.o as PwmOut).duty(v, s.c.freqHz || 1000);
      else (s.o as DigitalOut).write(!!v !== !!s.c.invert);
    },
    // One timer for all outputs, set for the nearest failsafe or read; an
    // overdue read needs none: the uplink runs it, and it arms again.
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
          // Not cleared from its own callback: Kaluma 1.2.1's clearTimeout() breaks the loop there.
          timer = undefined;
          x.arm();
        }, next - t);
      }
      x.due = due;
      if (due) up.wake();
    },
    run() {
      let s = all[0] as Slot;
      for (let i = 1; i < all.length; i++) if ((all[i] as Slot).at < s.at) s = all[i] as Slot;
      s.at = p.clock.uptimeMs() + s.c.pollMs;
      const m = load<ReadSource>('output-read');
      if (m.ok) return m.value(x, s, p, client, config.service.apiKey);
      // Not loaded: a failed read, retried with the backoff. Kept without the
      // figures in brackets (the free heap changes at every try), logged once.
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
