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
import type { Sensor } from '../sensor';

// I2cEnv's properties do not end in '_' (the device build shortens those): it
// is made by the resident program and read by cold code, which on the host
// (npm start) are the TypeScript sources and the device build's cold modules.
// An I2cSensor is made and read by cold code only (but for name, sample and
// close, which the sampler calls): its names are shortened, its state's are numbers.
/** What every I2C sensor of a running agent shares. */
export interface I2cEnv {
  p: Pick<Platform, 'i2c' | 'timers' | 'log' | 'clock' | 'system'>;
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

/**
 * One I2C sensor as the sampler holds it (name, sample, close: src/sensors/sensor.ts)
 * and its state. The state is one array, not an object of fields: a field
 * of an array costs a small part of an object's on the device's heap
 * (docs/measurements/2026-11-29-i2c.md).
 */
export interface I2cSensor extends Sensor {
  st_: I2cState;
}

/** Where each field of an I2cState is (a const enum: the build writes the numbers in). */
export const enum S {
  /** The sensor's config. */
  Cfg,
  /** What the agent's I2C sensors share; undefined once closed: no step runs after. */
  Env,
  /** The next step: 0 starts a conversion, 1 reads it. */
  Phase,
  /**
   * The sensors' one step function (i2c-start's, also each sensor's sample()):
   * a timer gets it bound to the state when one is armed, and lets that go
   * when it fires, so no callback is kept per sensor between steps.
   */
  Next,
  /** The step's timer while one waits. */
  Wait,
  /** The chip's state (its driver's init_), undefined until it is readied and after a failure. */
  Chip,
  /** Conversions read whole since the agent started. */
  Reads,
  /** Failed steps since the agent started. */
  Failures,
  /** The failure of the last step, undefined when it read. */
  Error,
  /** When the last conversion was read (uptime ms). */
  At,
  /** The first quantity's fields (Q), then the next quantity's, in the kinds table's order. */
  Quantities,
}

/**
 * Each quantity's fields, from S.Quantities + Q.Size * i, made at the first
 * read: its filters' state and its last value (NaN: none now). Its reading's
 * name, unit, scale and offset are made at each step from the config and the
 * kinds table: fewer values kept.
 */
export const enum Q {
  Filter,
  Last,
  Size,
}

/** A step: called by the sampler as a sensor's sample(), or by a timer with the state it was bound to. */
export type I2cStep = (this: I2cSensor | void, timer?: I2cState) => null;

export type I2cState = [
  cfg: SensorConfig,
  env: I2cEnv | undefined,
  phase: number,
  next: I2cStep,
  wait: TimerId | undefined,
  chip: number[] | undefined,
  reads: number,
  failures: number,
  error: string | undefined,
  at: number,
  ...quantities: (Filter | number)[],
];
