// The I2C sensors' objects: the cold module 'i2c-start', loaded when the
// agent starts with an I2C sensor carried, and kept while it runs (its
// small functions are the sensors' methods). A board without I2C sensors
// carries none of it. Each sample is then two steps, the cold modules
// 'i2c-go' and 'i2c-read' (./sensors.ts), each loaded for its step and let
// go; a failed step loads 'i2c-fail' (./fail.ts) the same way.
import type { SampledSensor } from '../../agent/sampler';
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
    st[S.Next] = stepper(st);
    const s: I2cSensor = { name: cfg.name, sample, close, st_: st };
    out.push(s);
    sampled.push({ sensor: s, filter: undefined, intervalMs: cfg.intervalMs });
  }
  return out;
}

/** The sensor's timer callback: a function of its own scope, which holds the state alone. */
const stepper =
  (st: I2cState): (() => void) =>
  () =>
    step(st);

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
  let why = run(st, e, st[S.Phase] ? 'i2c-read' : 'i2c-go');
  if (why !== undefined) why = run(st, e, 'i2c-fail', why);
  if (why === undefined) return;
  st[S.Failures]++;
  st[S.Phase] = 0;
  if (st[S.Error] !== why) e.p.log.error('sensor ' + st[S.Cfg].name + ': ' + (st[S.Error] = why));
}

/**
 * Runs a step's module (`why`: the failure 'i2c-fail' handles): why it
 * failed, or why it could not be loaded; undefined when it ran well. Its
 * own function, so the module is let go before a failure's is loaded.
 */
function run(st: I2cState, e: I2cEnv, name: string, why?: string): string | undefined {
  const m = e.load<typeof GoI2c | typeof FailI2c>(name);
  return m.ok ? m.value(st, why as string) : m.error;
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
