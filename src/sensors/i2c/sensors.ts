// The I2C sensors of a running agent: the cold module 'i2c', loaded with the
// agent only when a sensor of an I2C kind is configured, and kept while it
// runs. It opens each bus once, loads each kind's driver once (the cold
// module of the kind's name), and turns a period's sample() into a
// conversion that ends on a timer, never by blocking the loop. Each
// quantity then goes through its own calibration and filters to the agent.
//
// A failure (no answer, a CRC mismatch, a value the part marks as skipped, a
// bus held low) skips that reading, is counted, is logged when it differs
// from the last one, and the part is readied again at the next period: a
// part plugged in later starts reading without a restart.
import type { SampleEvent } from '../../agent/sampler';
import type { ColdLoader } from '../../cold';
import type { FilterSpec, SensorConfig } from '../../config/types';
import type { Filter } from '../../filters/filter';
import type { Clock, I2cBus, I2cPorts, Log, Platform, TimerId, Timers } from '../../ports/ports';
import type { Sensor } from '../sensor';
import type { Chip, Driver } from './driver';
import { I2C_KINDS, UNITS } from './kinds';

/** What status() and the health report say of one I2C sensor. */
export interface I2cStat {
  readonly name: string;
  /** Conversions read whole, and failed ones since the start. */
  reads: number;
  failures: number;
  /** The failure of the last try, or undefined when it read. */
  error?: string;
}

export interface I2cSensors {
  /** One per configured I2C sensor: sample() starts a conversion and gives null; its readings come through onSample. */
  sensors: Sensor[];
  stats(): I2cStat[];
  /** The last value of each quantity read, unfiltered: what sensors() shows. */
  latest(): SampleEvent[];
  /** The addresses that answer on an open bus, or undefined when no sensor has that bus open. */
  scan(bus: number): number[] | undefined;
}

// Properties ending in '_' get short names in the device build (scripts/build/mangle.ts).
interface Bus {
  n_: number;
  port_: I2cBus;
  /** What the last look at a failing bus found ('SDA held low'), so it is said once per change. */
  stuck_: string | undefined;
  /** Its sensors still open; -1 once it is closed. */
  users_: number;
}

interface Live extends Sensor, I2cStat {
  cfg_: SensorConfig;
  bus_: Bus;
  driver_: Driver;
  chip_: Chip | undefined;
  /** The conversion's timer while one runs. */
  wait_: TimerId | undefined;
  finish_: () => void;
  /** Per quantity: its reading's name ('air.humidity'), unit, filters, scale, offset, last value. */
  ids_: string[];
  units_: string[];
  filters_: Filter[];
  scales_: number[];
  offsets_: number[];
  last_: number[];
  at_: number;
  /** Shared by every sensor of the module. */
  env_: Env;
}

interface Env {
  timers_: Timers;
  log_: Log;
  clock_: Clock;
  emit_: (e: SampleEvent) => void;
}

/** The drivers are cold modules, named by their kind. */
export type LoadDriver = ColdLoader['load'];

/**
 * The I2C sensors of `cfgs` (all of I2C kinds), in their order, or why none
 * can run. The board's I2C is cold code too (the module 'kaluma-i2c') where
 * the platform has none resident; `chain`: the agent's filter maker (one copy
 * of the filters' code on the heap); `emit`: the agent's sample path.
 */
export function startI2c(o: {
  cfgs: SensorConfig[];
  p: Pick<Platform, 'i2c' | 'timers' | 'log' | 'clock'>;
  load: LoadDriver;
  chain: (specs: FilterSpec[]) => Filter;
  emit: (e: SampleEvent) => void;
}): I2cSensors | string {
  const p = o.p;
  let ports = p.i2c;
  if (!ports) {
    const m = o.load<I2cPorts>('kaluma-i2c');
    if (!m.ok) return m.error;
    ports = m.value;
  }
  const env: Env = { timers_: p.timers, log_: p.log, clock_: p.clock, emit_: o.emit };
  const buses: Bus[] = [];
  const drivers: Record<string, Driver> = {};
  const live: Live[] = [];
  for (const cfg of o.cfgs) {
    const kind = cfg.kind;
    const n = cfg.bus || 0;
    let bus: Bus | undefined;
    for (const b of buses) if (b.n_ === n) bus = b;
    if (!bus) {
      try {
        bus = { n_: n, port_: ports.open(n, cfg.sda as number, cfg.scl as number, cfg.freqHz || 100000), stuck_: undefined, users_: 0 };
      } catch (e) {
        closeAll(live, buses);
        return 'i2c bus ' + n + ': cannot open on SDA ' + String(cfg.sda) + ', SCL ' + String(cfg.scl) + ': ' + String(e);
      }
      buses.push(bus);
    }
    if (!drivers[kind]) {
      const m = o.load<Driver>(kind);
      if (!m.ok) {
        closeAll(live, buses);
        return 'sensor ' + cfg.name + ': the ' + kind + ' driver: ' + m.error;
      }
      drivers[kind] = m.value;
    }
    bus.users_++;
    const qs = (I2C_KINDS[kind] as [string[], number[]])[0];
    const c = cfg as unknown as Record<string, unknown>;
    const s: Live = {
      name: cfg.name, sample, close, cfg_: cfg, bus_: bus, driver_: drivers[kind], chip_: undefined, wait_: undefined,
      finish_: () => finish(s), ids_: [], units_: [], filters_: [], scales_: [], offsets_: [], last_: [], at_: 0,
      reads: 0, failures: 0, error: undefined, env_: env,
    };
    for (const q of qs) {
      s.ids_.push(cfg.name + '.' + q);
      s.units_.push(UNITS[q] as string);
      s.filters_.push(o.chain((c[q + 'Filters'] as FilterSpec[] | undefined) || cfg.filters));
      s.scales_.push(c[q + 'Scale'] === undefined ? 1 : (c[q + 'Scale'] as number));
      s.offsets_.push((c[q + 'Offset'] as number) || 0);
      s.last_.push(NaN);
    }
    live.push(s);
  }
  return {
    sensors: live,
    stats: () => live,
    latest() {
      const out: SampleEvent[] = [];
      for (const s of live) {
        for (let i = 0; i < s.ids_.length; i++) {
          if (s.last_[i] === s.last_[i]) out.push({ sensor: s.ids_[i] as string, base: s.name, value: s.last_[i] as number, unit: s.units_[i] as string, atMs: s.at_ });
        }
      }
      return out;
    },
    scan(n) {
      for (const b of buses) if (b.n_ === n) return scanBus(b.port_);
      return undefined;
    },
  };
}

/**
 * The 7-bit addresses that answer, 0x08 to 0x77 (the others are reserved):
 * each is asked for one byte. An SHT part refuses a read until it has
 * measured (and the RP2040 cannot send an address alone), so at 0x44-0x46
 * a refused read is followed by a one-byte write of 0x89: an SHT4x's serial
 * number request, a first byte an SHT3x ignores. Nothing else is written.
 */
export function scanBus(port: I2cBus): number[] {
  const found: number[] = [];
  for (let a = 0x08; a <= 0x77; a++) {
    if (typeof port.read(a, 1) !== 'string' || (a >= 0x44 && a <= 0x46 && port.write(a, [0x89]) !== 'no answer')) found.push(a);
  }
  return found;
}

/** Starts a conversion (readying the part first when it is not): null, as its readings come later. */
function sample(this: Live): null {
  if (this.wait_ !== undefined || !this.bus_) return null;
  if (!this.chip_) {
    const c = this.driver_(this.bus_.port_, this.cfg_.address as number);
    if (typeof c === 'string') return fail(this, c);
    this.chip_ = c;
    if (c.note_) this.env_.log_.info('sensor ' + this.name + ': ' + c.note_);
  }
  const ms = this.chip_.start_();
  if (typeof ms === 'string') return fail(this, ms);
  this.wait_ = this.env_.timers_.setTimeout(this.finish_, ms);
  return null;
}

/** The conversion's end: each quantity calibrated, filtered and handed on. */
function finish(s: Live): void {
  s.wait_ = undefined;
  if (!s.chip_) return;
  const v = s.chip_.read_();
  if (typeof v === 'string') return void fail(s, v);
  const at = s.env_.clock_.uptimeMs();
  s.at_ = at;
  s.reads++;
  s.bus_.stuck_ = undefined;
  if (s.error !== undefined) {
    s.env_.log_.info('sensor ' + s.name + ': reading again (' + s.failures + ' failures so far)');
    s.error = undefined;
  }
  for (let i = 0; i < s.ids_.length; i++) {
    const x = v[i] as number;
    // NaN: a quantity this part has not (a BMP280's humidity).
    if (x !== x) continue;
    const value = x * (s.scales_[i] as number) + (s.offsets_[i] as number);
    s.last_[i] = value;
    const out = (s.filters_[i] as Filter).push(value, at);
    if (out !== undefined && isFinite(out)) s.env_.emit_({ sensor: s.ids_[i] as string, base: s.name, value: out, unit: s.units_[i] as string, atMs: at });
  }
}

/** A failed try: counted, logged when it differs from the last, the part readied again next period; a held bus freed. */
function fail(s: Live, why: string): null {
  s.failures++;
  s.chip_ = undefined;
  const log = s.env_.log_;
  if (s.error === undefined) {
    // Its last readings are not sent again as if new: the agent drops them (NaN).
    const at = s.env_.clock_.uptimeMs();
    for (let i = 0; i < s.ids_.length; i++) {
      if (s.last_[i] !== s.last_[i]) continue;
      s.last_[i] = NaN;
      s.env_.emit_({ sensor: s.ids_[i] as string, base: s.name, value: NaN, unit: s.units_[i] as string, atMs: at });
    }
  }
  if (why !== s.error) {
    log.error('sensor ' + s.name + ' (' + s.cfg_.kind + ' at 0x' + (s.cfg_.address as number).toString(16) + ', bus ' + s.bus_.n_ + '): ' + why + '; tried again every period');
    s.error = why;
  }
  const b = s.bus_;
  const held = b.port_.stuck();
  if (held !== b.stuck_) {
    b.stuck_ = held;
    if (held) log.error('i2c bus ' + b.n_ + ': ' + held + '; ' + b.port_.recover());
  } else if (held) b.port_.recover();
  return null;
}

function close(this: Live): void {
  if (this.wait_ !== undefined) this.env_.timers_.clearTimeout(this.wait_);
  this.wait_ = undefined;
  this.chip_ = undefined;
  // The bus is closed by the last of its sensors.
  const b = this.bus_;
  if (!b) return;
  (this as { bus_: Bus | undefined }).bus_ = undefined;
  if (--b.users_ === 0) closeBus(b);
}

function closeBus(b: Bus): void {
  b.users_ = -1;
  b.port_.close();
}

/** A start that failed half way: what opened is closed. */
function closeAll(live: Live[], buses: Bus[]): void {
  for (const s of live) s.close();
  for (const b of buses) if (b.users_ >= 0) closeBus(b);
}
