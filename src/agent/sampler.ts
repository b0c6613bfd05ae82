// Samples each sensor on its own period. Sensors of one period share a timer
// and one pass, so a device carrying several makes one record per period. A
// run re-arms after it finished, from when it started: a blocked loop gives
// one late run, never a burst. A sensor that throws is skipped for that cycle.
import type { Filter } from '../filters/index';
import type { Clock, Log, TimerId, Timers } from '../ports/ports';
import type { Sensor } from '../sensors/index';

export interface SampledSensor {
  sensor: Sensor;
  /** None for an I2C part, whose quantities have their own (src/sensors/i2c/sensors.ts): left out, one field less kept. */
  filter?: Filter;
  intervalMs: number;
  /** Values are whole numbers unless a filter averages them. */
  whole?: boolean;
}

export interface SampleEvent {
  /** The reading's name: the sensor's, or sensor.quantity for a part that measures several ('air.humidity'). */
  sensor: string;
  /** The sensor's name when `sensor` names one of its quantities. */
  base?: string;
  value: number;
  unit: string;
  atMs: number;
  /** Set for sensors whose values are whole numbers (levels, counts). */
  whole?: boolean;
}

export interface SamplerStats {
  runs: number;
  errors: number;
  dropped: number;
  lastError?: string;
  lastRunMs?: number;
}

export interface Sampler {
  start(): void;
  stop(): void;
  /** One immediate reading per sensor, without filters, for the console. */
  peek(): SampleEvent[];
  stats(): SamplerStats;
}

export function createSampler(o: {
  sensors: SampledSensor[];
  timers: Timers;
  clock: Clock;
  log: Log;
  onSample: (e: SampleEvent) => void;
}): Sampler {
  const ids: (TimerId | undefined)[] = [];
  const st: SamplerStats = { runs: 0, errors: 0, dropped: 0 };
  let running = false;
  // A period's first sensor leads it; its callback is made once, not per run.
  // Plain loops, not callbacks: each function costs heap.
  const fire: ((() => void) | undefined)[] = [];
  for (let i = 0; i < o.sensors.length; i++) {
    let j = 0;
    while ((o.sensors[j] as SampledSensor).intervalMs !== (o.sensors[i] as SampledSensor).intervalMs) j++;
    fire.push(j === i ? () => runPeriod(i) : undefined);
  }

  /** One pass over every sensor of the lead's period. */
  function runPeriod(lead: number): void {
    const ms = (o.sensors[lead] as SampledSensor).intervalMs;
    const begun = o.clock.uptimeMs();
    ids[lead] = undefined;
    for (const s of o.sensors) {
      if (s.intervalMs !== ms) continue;
      const started = o.clock.uptimeMs();
      st.runs++;
      st.lastRunMs = started;
      try {
        const got = s.sensor.sample();
        // null: the sensor hands its readings on by itself, later.
        if (got === null) continue;
        const value = got && s.filter ? s.filter.push(got.value, started) : undefined;
        if (got && value !== undefined && isFinite(value)) {
          o.onSample({ sensor: s.sensor.name, value, unit: got.unit, atMs: started, whole: s.whole && value % 1 === 0 });
        } else {
          st.dropped++;
        }
      } catch (e) {
        st.errors++;
        st.lastError = s.sensor.name + ': ' + String(e);
        o.log.error('sampler: ' + st.lastError);
      }
    }
    if (running) ids[lead] = o.timers.setTimeout(fire[lead] as () => void, Math.max(0, ms - (o.clock.uptimeMs() - begun)));
  }

  return {
    start() {
      if (running) return;
      running = true;
      // First samples at once: a fresh boot shows data within seconds.
      for (let i = 0; i < fire.length; i++) {
        const f = fire[i];
        if (f) ids[i] = o.timers.setTimeout(f, 0);
      }
    },
    stop() {
      running = false;
      for (const id of ids) if (id !== undefined) o.timers.clearTimeout(id);
      ids.length = 0;
    },
    peek() {
      const out: SampleEvent[] = [];
      for (const s of o.sensors) {
        // An I2C part (its filters are its own: none here) is not read on demand: a conversion takes time.
        if (!s.filter) continue;
        let got;
        try {
          got = s.sensor.sample();
        } catch {
          got = undefined;
        }
        if (got) out.push({ sensor: s.sensor.name, value: got.value, unit: got.unit, atMs: o.clock.uptimeMs() });
      }
      return out;
    },
    stats: () => st,
  };
}
