// Samples each sensor on its own period. A run re-arms only after it
// finished, from the time it actually started, so a blocked event loop
// (Wi-Fi connect, flash erase) yields one late run, never a catch-up burst.
// A sensor that throws is reported and skipped for that cycle only.
import type { Filter } from '../filters/index';
import type { Clock, Log, TimerId, Timers } from '../ports/ports';
import type { Sensor } from '../sensors/index';

export interface SampledSensor {
  sensor: Sensor;
  filter: Filter;
  intervalMs: number;
  /** Values are whole numbers unless a filter averages them. */
  whole?: boolean;
}

export interface SampleEvent {
  sensor: string;
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

  function runOne(i: number): void {
    const s = o.sensors[i] as SampledSensor;
    const started = o.clock.uptimeMs();
    ids[i] = undefined;
    st.runs++;
    st.lastRunMs = started;
    try {
      const got = s.sensor.sample();
      const value = got ? s.filter.push(got.value, started) : undefined;
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
    if (!running) return;
    const spent = o.clock.uptimeMs() - started;
    ids[i] = o.timers.setTimeout(() => runOne(i), Math.max(0, s.intervalMs - spent));
  }

  return {
    start() {
      if (running) return;
      running = true;
      // First samples right away, so a fresh boot shows data within seconds.
      for (let i = 0; i < o.sensors.length; i++) ids[i] = o.timers.setTimeout(() => runOne(i), 0);
    },
    stop() {
      running = false;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i];
        if (id !== undefined) o.timers.clearTimeout(id);
        ids[i] = undefined;
      }
    },
    peek() {
      const out: SampleEvent[] = [];
      for (const s of o.sensors) {
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
