import type { SensorConfig } from '../config/types';
import type { DigitalIn, Pins, TimerId, Timers } from '../ports/ports';
import type { Sensor } from './sensor';

/**
 * Rising edges per sampling interval, found by polling the pin (interrupt
 * callbacks are unsafe on the target runtime). Pulses shorter than pollMs can
 * be missed; this suits contacts and slow meters, not fast pulse trains.
 */
export function createCounterSensor(o: { cfg: SensorConfig; pins: Pins; timers: Timers }): Sensor {
  const { cfg, timers } = o;
  const pollMs = cfg.pollMs ?? 10;
  let input: DigitalIn | undefined = o.pins.digitalIn(cfg.pin, cfg.pull ?? 'up');
  let last = input.read();
  let count = 0;
  let timer: TimerId;

  const poll = (): void => {
    if (!input) return;
    const level = input.read();
    if (level === 1 && last === 0) count++;
    last = level;
    // Re-armed only after the read: one poll at a time, stopped by close().
    timer = timers.setTimeout(poll, pollMs);
  };
  timer = timers.setTimeout(poll, pollMs);

  return {
    name: cfg.name,
    sample() {
      if (!input) return undefined;
      const edges = count;
      count = 0;
      return { value: edges, unit: cfg.unit };
    },
    close() {
      if (!input) return;
      timers.clearTimeout(timer);
      input.close();
      input = undefined;
    },
  };
}
