// The I2C sensors' objects: the cold module 'i2c-start', loaded when the
// agent starts with an I2C sensor carried, and kept while it runs (its
// three small functions are the sensors' methods). A board without I2C
// sensors carries none of it. Each sample is then two steps of the cold
// modules 'i2c-go' and 'i2c-read' (./sensors.ts), each loaded for its step and let go.
import type { SampledSensor } from '../../agent/sampler';
import type { SensorConfig } from '../../config/types';
import type { Sensor } from '../sensor';
import type { goI2c as GoI2c } from './sensors';
import type { I2cEnv, I2cSensor } from './state';

type Live = I2cSensor & Sensor;

/**
 * One sensor object per config of `cfgs` (all of I2C kinds), in their order,
 * sharing `env`, each also added to the sampler's list `sampled` (with no
 * filter there: each quantity has its own, ./sensors.ts).
 */
export function startI2c(cfgs: SensorConfig[], env: I2cEnv, sampled: SampledSensor[]): Live[] {
  const out: Live[] = [];
  for (const cfg of cfgs) {
    const q: Live = {
      name: cfg.name, sample, close, cfg_: cfg, env_: env, phase_: 0, next_: () => step(q), wait_: undefined, chip_: undefined,
      reads_: 0, failures_: 0, error_: undefined, filters_: undefined, last_: [], at_: 0,
    };
    out.push(q);
    sampled.push({ sensor: q, filter: undefined, intervalMs: cfg.intervalMs });
  }
  return out;
}

/**
 * A sensor's next step: its cold module ('i2c-go' or 'i2c-read') loaded, run and let go; put
 * off while a request is in flight, so its code's heap does not add to the
 * request's. A module that cannot be loaded is a failed step, said when its
 * reason changes.
 */
function step(s: Live): void {
  const e = s.env_;
  s.wait_ = undefined;
  if (!e) return;
  // The uplink's stats: a request in flight since some time.
  if (e.busy().inFlightSinceMs !== undefined) {
    s.wait_ = e.p.timers.setTimeout(s.next_, 100);
    return;
  }
  // Each step's code alone: the one that starts a conversion, or the one that reads it.
  const m = e.load<typeof GoI2c>(s.phase_ ? 'i2c-read' : 'i2c-go');
  if (m.ok) return m.value(s);
  s.failures_++;
  if (s.error_ !== m.error) e.p.log.error('sensor ' + s.name + ': ' + (s.error_ = m.error));
}

/** A conversion started (none while one is under way): its readings come later, by themselves. */
function sample(this: Live): null {
  if (this.env_ && this.wait_ === undefined) step(this);
  return null;
}

/** No more steps; the bus is taken again by the next start (I2cPorts.open). */
function close(this: Live): void {
  const e = this.env_;
  if (!e) return;
  if (this.wait_ !== undefined) e.p.timers.clearTimeout(this.wait_);
  this.wait_ = undefined;
  this.env_ = undefined;
}
