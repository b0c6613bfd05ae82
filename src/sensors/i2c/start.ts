// The I2C sensors' objects: the cold module 'i2c-start', loaded when the
// agent starts with an I2C sensor carried, and kept while it runs (its
// small functions are the sensors' methods). A board without I2C sensors
// carries none of it. Each sample is then two steps, the cold modules
// 'i2c-go' and 'i2c-read' (./sensors.ts), each loaded for its step and let
// go; a failed step loads 'i2c-fail' (./fail.ts) the same way.
import type { SampledSensor } from '../../agent/sampler';
import type { ColdResult } from '../../cold';
import type { SensorConfig } from '../../config/types';
import type { failI2c as FailI2c } from './fail';
import type { goI2c as GoI2c } from './sensors';
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
    // S.Next is set on the next line: its callback needs the state it is in.
    const st: I2cState = [cfg, env, 0, undefined as unknown as () => void, undefined, undefined, 0, 0, undefined, 0];
    // Bound, not a closure: a closure made here would keep this loop's scope, and one made elsewhere costs a function more.
    st[S.Next] = step.bind(undefined, st);
    const s: I2cSensor = { name: cfg.name, sample, close, st_: st };
    out.push(s);
    sampled.push({ sensor: s, filter: undefined, intervalMs: cfg.intervalMs });
  }
  return out;
}

/**
 * A sensor's next step: its cold module ('i2c-go' or 'i2c-read') loaded,
 * run and let go; put off while a request is in flight, so its code's heap
 * does not add to the request's. A failed step then loads 'i2c-fail'; when
 * no module can be loaded, the step is counted as failed and the reason
 * said when it changes.
 */
function step(st: I2cState): void {
  const e = st[S.Env];
  st[S.Wait] = undefined;
  if (!e) return;
  // The uplink's stats: a request in flight since some time.
  if (e.busy().inFlightSinceMs !== undefined) {
    st[S.Wait] = e.p.timers.setTimeout(st[S.Next], 100);
    return;
  }
  let m: ColdResult<typeof GoI2c> | ColdResult<typeof FailI2c> | undefined = e.load<typeof GoI2c>(st[S.Phase] ? 'i2c-read' : 'i2c-go');
  let why = m.ok ? m.value(st) : m.error;
  // The step's module let go before a failure's is loaded.
  m = undefined;
  if (why !== undefined) {
    m = e.load<typeof FailI2c>('i2c-fail');
    why = m.ok ? m.value(st, why) : m.error;
  }
  if (why === undefined) return;
  st[S.Failures]++;
  st[S.Phase] = 0;
  if (st[S.Error] !== why) e.p.log.error('sensor ' + st[S.Cfg].name + ': ' + (st[S.Error] = why));
}

/** A conversion started (none while one is under way): its readings come later, by themselves. */
function sample(this: I2cSensor): null {
  const st = this.st_;
  if (st[S.Env] && st[S.Wait] === undefined) step(st);
  return null;
}

/** No more steps; the bus is taken again by the next start (I2cPorts.open). */
function close(this: I2cSensor): void {
  const st = this.st_;
  const e = st[S.Env];
  if (!e) return;
  if (st[S.Wait] !== undefined) e.p.timers.clearTimeout(st[S.Wait]);
  st[S.Wait] = undefined;
  st[S.Env] = undefined;
}
