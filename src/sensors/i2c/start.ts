// The I2C sensors' objects: the cold module 'i2c-start', loaded when the
// agent starts with an I2C sensor carried, and kept while it runs (its
// small functions are the sensors' methods). A board without I2C sensors
// carries none of it. Each sample is then two steps, the cold modules
// 'i2c-go' and 'i2c-read' (./sensors.ts), each loaded for its step and let
// go; a failed step loads 'i2c-fail' (./fail.ts) the same way.
import type { SampledSensor } from '../../agent/sampler';
import type { SensorConfig } from '../../config/types';
import { S } from './state';
import type { I2cEnv, I2cSensor, I2cState } from './state';

/**
 * One sensor per config of `cfgs` (all of I2C kinds), in their order,
 * sharing `env`, each also added to the sampler's list `sampled` (with no
 * filter there: each quantity has its own, ./sensors.ts).
 */
export function startI2c(cfgs: SensorConfig[], env: I2cEnv, sampled: SampledSensor[]): I2cSensor[] {
  const out: I2cSensor[] = [];
  for (let i = 0; i < cfgs.length; i++) {
    const cfg = cfgs[i] as SensorConfig;
    const st: I2cState = [cfg, env, 0, step, undefined, undefined, 0, 0, undefined, 0];
    const s: I2cSensor = { name: cfg.name, sample: step, close, st_: st };
    out.push(s);
    sampled.push({ sensor: s, intervalMs: cfg.intervalMs });
  }
  return out;
}

/** A step's module: go and read say why they failed, or undefined; fail takes that reason. */
type Step = (st: I2cState, why?: string) => string | undefined;

/**
 * A sensor's next step, as the sampler's sample() (a conversion started,
 * none while one is under way: its readings come later, by themselves) and
 * as a timer's callback, bound to its state when the timer is armed: its cold module ('i2c-go' or
 * 'i2c-read') loaded, run and let go; put off while a request is in flight,
 * so its code's heap does not add to the request's. A failed step then
 * loads 'i2c-fail' with the reason, the step's module let go first; a
 * module that cannot be loaded is a failed step, said when its reason changes.
 * One function for both callers: each function kept costs heap.
 */
function step(this: I2cSensor | void, timer?: I2cState): null {
  const st = timer || (this as I2cSensor).st_;
  if (timer) st[S.Wait] = undefined;
  const e = st[S.Env];
  if (!e || st[S.Wait] !== undefined) return null;
  // The uplink's stats: a request in flight since some time.
  if (e.busy().inFlightSinceMs !== undefined) {
    st[S.Wait] = e.p.timers.setTimeout(step.bind(undefined, st), 100);
    return null;
  }
  let why: string | undefined;
  for (;;) {
    const m = e.load<Step>(why !== undefined ? 'i2c-fail' : st[S.Phase] ? 'i2c-read' : 'i2c-go');
    if (!m.ok) {
      st[S.Failures]++;
      st[S.Phase] = 0;
      if (st[S.Error] !== m.error) e.p.log.error('sensor ' + st[S.Cfg].name + ': ' + (st[S.Error] = m.error));
      break;
    }
    if ((why = m.value(st, why)) === undefined) break;
  }
  // The step's code is garbage now: collected at once, or a request that
  // starts before the engine's own next collection would add its heap to it.
  if (e.p.system.collect) e.p.system.collect();
  return null;
}

/** No more steps (a timer under way finds none to take); the bus is taken again by the next start (I2cPorts.open). */
function close(this: I2cSensor): void {
  this.st_[S.Env] = undefined;
}
