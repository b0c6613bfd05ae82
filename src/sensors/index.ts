// Every sensor kind in one factory: a plain object of state and two methods
// shared by all sensors, as each function and closure costs heap. A new kind
// (an I2C part, say) adds its branch to make and sample.
import type { SensorConfig } from '../config/types';
import type { AnalogIn, DigitalIn, Pins, TimerId, Timers } from '../ports/ports';
import type { Sensor, SensorSample } from './sensor';

export type { Sensor, SensorSample } from './sensor';

// Properties ending in '_' get short names in the device build (scripts/build/mangle.ts).
interface Live extends Sensor {
  cfg_: SensorConfig;
  /** The open input; undefined once closed. */
  input_: (AnalogIn & DigitalIn) | undefined;
  /** analog, temperature: reference volts. digital: 1 to invert. */
  vrefOrInvert_: number;
  /** analog: scale. */
  scale_: number;
  /** analog: offset; temperature: offsetC. */
  offset_: number;
  /** counter: rising edges since the last sample, last level, poll timer. */
  edges_: number;
  level_: number;
  poll_: TimerId | undefined;
  timers_: Timers;
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
  const s: Live = { name: cfg.name, sample, close, cfg_: cfg, input_: undefined, vrefOrInvert_: cfg.vrefV ?? 3.3, scale_: cfg.scale ?? 1, offset_: cfg.offset ?? 0, edges_: 0, level_: 0, poll_: undefined, timers_: o.timers };
  if (kind === 'digital' || kind === 'counter') {
    const input = o.pins.digitalIn(cfg.pin, cfg.pull ?? (kind === 'digital' ? 'none' : 'up')) as AnalogIn & DigitalIn;
    s.input_ = input;
    if (kind === 'digital') s.vrefOrInvert_ = cfg.invert === true ? 1 : 0;
    else {
      const pollMs = cfg.pollMs ?? 10;
      s.level_ = input.read();
      const poll = (): void => {
        if (!s.input_) return;
        const level = s.input_.read();
        if (level === 1 && s.level_ === 0) s.edges_++;
        s.level_ = level;
        // Re-armed only after the read: one poll at a time, stopped by close().
        s.poll_ = o.timers.setTimeout(poll, pollMs);
      };
      s.poll_ = o.timers.setTimeout(poll, pollMs);
    }
  } else {
    if (kind === 'temperature') s.offset_ = cfg.offsetC ?? 0;
    else if (cfg.points) {
      const [[v1, y1], [v2, y2]] = cfg.points;
      s.scale_ = (y2 - y1) / (v2 - v1);
      s.offset_ = y1 - v1 * s.scale_;
    }
    s.input_ = o.pins.analogIn(cfg.pin) as AnalogIn & DigitalIn;
  }
  return s;
}

function sample(this: Live): SensorSample | undefined {
  const input = this.input_;
  const cfg = this.cfg_;
  if (!input) return undefined;
  let value: number;
  if (cfg.kind === 'digital') {
    const level = input.read();
    value = this.vrefOrInvert_ ? 1 - level : level;
  } else if (cfg.kind === 'counter') {
    value = this.edges_;
    this.edges_ = 0;
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
    if (cfg.kind === 'temperature') value = 27 - (f * this.vrefOrInvert_ - 0.706) / 0.001721 + this.offset_;
    else {
      value = f * this.vrefOrInvert_ * this.scale_ + this.offset_;
      // Degenerate calibration points (equal volts) would otherwise send NaN or Infinity.
      if (!isFinite(value)) return undefined;
    }
  }
  return { value, unit: cfg.unit };
}

function close(this: Live): void {
  if (!this.input_) return;
  if (this.poll_ !== undefined) this.timers_.clearTimeout(this.poll_);
  this.input_.close();
  this.input_ = undefined;
}
