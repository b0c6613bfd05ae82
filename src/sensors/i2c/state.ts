// What an I2C sensor keeps between the steps of its cold code: data only.
// Each step (a conversion started, a conversion read) loads its cold module
// ('i2c-go', 'i2c-read': src/sensors/i2c/sensors.ts) and the kind's driver, runs them and
// lets them go, so a board with I2C sensors keeps no I2C code on the heap
// between samples, only these objects.
import type { SampleEvent } from '../../agent/sampler';
import type { ColdLoader } from '../../cold';
import type { FilterSpec, SensorConfig } from '../../config/types';
import type { Filter } from '../../filters/filter';
import type { Platform, TimerId } from '../../ports/ports';

// I2cEnv's properties do not end in '_' (the device build shortens those): it
// is made by the resident program and read by cold code, which on the host
// (npm start) are the TypeScript sources and the device build's cold modules.
// An I2cSensor is made and read by cold code only (but for name, sample and
// close, which the sampler calls): its names are shortened.
/** What every I2C sensor of a running agent shares. */
export interface I2cEnv {
  p: Pick<Platform, 'i2c' | 'timers' | 'log' | 'clock'>;
  load: ColdLoader['load'];
  /** The agent's sample path. */
  emit: (e: SampleEvent) => void;
  /** The agent's filter maker: one copy of the filters' code on the heap. */
  chain: (specs: FilterSpec[]) => Filter;
  /** The uplink's stats (src/agent/uplink.ts): while a request is in flight a step waits, so its code's heap does not add to the request's. */
  busy: () => { inFlightSinceMs?: number };
  /** Each bus (0, 1) once opened: its handle (I2cPorts.open), and what the last look at it found. */
  buses: (I2cBusState | undefined)[];
}

export interface I2cBusState {
  h: object;
  /** 'SDA held low' while a part holds it, so it is said once per change. */
  stuck: string | undefined;
}

/** One I2C sensor: the agent's Sensor (src/sensors/index.ts) with these fields. */
export interface I2cSensor {
  readonly name: string;
  cfg_: SensorConfig;
  /** Undefined once closed: no step runs after. */
  env_: I2cEnv | undefined;
  /** The next step: 0 starts a conversion, 1 reads it. */
  phase_: number;
  /** Runs the next step (made once per sensor: a timer's callback). */
  next_: () => void;
  /** The step's timer while one waits. */
  wait_: TimerId | undefined;
  /** The chip's state (its driver's init_), undefined until it is readied and after a failure. */
  chip_: number[] | undefined;
  /** Conversions read whole, and failed steps, since the agent started. */
  reads_: number;
  failures_: number;
  /** The failure of the last step, undefined when it read. */
  error_: string | undefined;
  /**
   * Per quantity of its kind (in the kinds table's order), once the first
   * step made them: its filters' state, and its last value (NaN: none now).
   * Its reading's name ('air.humidity'), unit, scale and offset are made at
   * each step from the config and the kinds table: fewer objects kept.
   */
  filters_: Filter[] | undefined;
  last_: number[];
  /** When the last conversion was read (uptime ms). */
  at_: number;
}
