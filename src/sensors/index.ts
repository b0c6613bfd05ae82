// Every sensor kind in one factory: the sensor is a plain object of state and
// two methods shared by all sensors, not a factory and closures per kind (on
// the device's engine each function costs heap as bytecode, each closure per
// sensor). A new kind (an I2C part, say) adds its branch to make and sample.
import type { SensorConfig } from '../config/types';
import type { AnalogIn, DigitalIn, Pins, TimerId, Timers } from '../ports/ports';
import type { Sensor, SensorSample } from './sensor';

export type { Sensor, SensorSample } from './sensor';

interface Live extends Sensor {
  c: SensorConfig;
  /** The open input; undefined once closed. */
  i: (AnalogIn & DigitalIn) | undefined;
  /** analog, temperature: reference volts. digital: 1 to invert. */
  a: number;
  /** analog: scale. */
  b: number;
  /** analog: offset; temperature: offsetC. */
  d: number;
  /** counter: rising edges since the last sample, last level, poll timer. */
  n: number;
  l: number;
  t: TimerId | undefined;
  m: Timers;
}

/**
 * digital: level 0/1 of a GPIO; `invert` reports 1 for a low level (active-low contacts).
 *
 * analog: an ADC pin read as volts, then mapped linearly to the configured
 * unit: by two-point calibration when `points` is set, else by scale and offset.
 *
 * temperature: the on-chip sensor (cfg.pin is the board's temperature
 * pseudo-pin; config validation checks it). Datasheet formula for RP2040 and
 * RP2350: 0.706 V at 27 C, falling 1.721 mV per degree. It is single-point and
 * VREF-dependent, hence the averaging by default and the offsetC trim.
 *
 * counter: rising edges per sampling interval, found by polling the pin
 * (interrupt callbacks are unsafe on the target runtime). Pulses shorter than
 * pollMs can be missed; this suits contacts and slow meters, not fast pulse trains.
 */
export function createSensor(o: { cfg: SensorConfig; pins: Pins; timers: Timers }): Sensor {
  const cfg = o.cfg;
  const kind = cfg.kind;
  const s: Live = { name: cfg.name, sample, close, c: cfg, i: undefined, a: cfg.vrefV ?? 3.3, b: cfg.scale ?? 1, d: cfg.offset ?? 0, n: 0, l: 0, t: undefined, m: o.timers };
  if (kind === 'digital' || kind === 'counter') {
    const input = o.pins.digitalIn(cfg.pin, cfg.pull ?? (kind === 'digital' ? 'none' : 'up')) as AnalogIn & DigitalIn;
    s.i = input;
    if (kind === 'digital') s.a = cfg.invert === true ? 1 : 0;
    else {
      const pollMs = cfg.pollMs ?? 10;
      s.l = input.read();
      const poll = (): void => {
        if (!s.i) return;
        const level = s.i.read();
        if (level === 1 && s.l === 0) s.n++;
        s.l = level;
        // Re-armed only after the read: one poll at a time, stopped by close().
        s.t = o.timers.setTimeout(poll, pollMs);
      };
      s.t = o.timers.setTimeout(poll, pollMs);
    }
  } else {
    if (kind === 'temperature') s.d = cfg.offsetC ?? 0;
    else if (cfg.points) {
      const [[v1, y1], [v2, y2]] = cfg.points;
      s.b = (y2 - y1) / (v2 - v1);
      s.d = y1 - v1 * s.b;
    }
    s.i = o.pins.analogIn(cfg.pin) as AnalogIn & DigitalIn;
  }
  return s;
}

function sample(this: Live): SensorSample | undefined {
  const input = this.i;
  const cfg = this.c;
  if (!input) return undefined;
  let value: number;
  if (cfg.kind === 'digital') {
    const level = input.read();
    value = this.a ? 1 - level : level;
  } else if (cfg.kind === 'counter') {
    value = this.n;
    this.n = 0;
  } else {
    // The mean of `oversample` reads, none if one read is NaN or outside
    // [0, 1]: a broken read must not be averaged into a plausible value.
    const count = cfg.oversample ?? (cfg.kind === 'analog' ? 1 : 8);
    const n = count >= 1 ? Math.floor(count) : 1;
    let f = 0;
    for (let k = 0; k < n; k++) {
      const x = input.readFraction();
      if (!(x >= 0 && x <= 1)) return undefined;
      f += x;
    }
    f /= n;
    if (cfg.kind === 'temperature') value = 27 - (f * this.a - 0.706) / 0.001721 + this.d;
    else {
      value = f * this.a * this.b + this.d;
      // Degenerate calibration points (equal volts) would otherwise send NaN or Infinity.
      if (!isFinite(value)) return undefined;
    }
  }
  return { value, unit: cfg.unit };
}

function close(this: Live): void {
  if (!this.i) return;
  if (this.t !== undefined) this.m.clearTimeout(this.t);
  this.i.close();
  this.i = undefined;
}
