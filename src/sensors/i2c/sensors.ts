// The I2C sensors' steps: the cold modules 'i2c-go' and 'i2c-read', each
// loaded for one step of one sensor and let go after it, with the kind's driver (the cold module of the
// kind's name) and, on the board, the board's I2C (src/ports/kaluma/i2c.ts,
// bundled in). A sample is two steps: the conversion started, then read on a
// timer after the part's conversion time, never by blocking the loop; each
// quantity then goes through its own calibration and filters to the agent.
// What a sensor keeps between steps is data (./state.ts).
//
// A failure (no answer, a CRC mismatch, a value the part marks as skipped, a
// bus held low) skips that reading, is counted, is logged when it differs
// from the last one, and the part is readied again at the next period: a
// part plugged in later starts reading without a restart.
import { kalumaI2c } from '../../ports/kaluma/i2c';
import type { I2cBus, I2cPorts, Platform } from '../../ports/ports';
import type { Filter } from '../../filters/filter';
import type { Driver } from './driver';
import { UNITS, quantitiesOf } from './kinds';
import type { I2cBusState, I2cEnv, I2cSensor } from './state';

/** The board's I2C, or the platform's own (a PC's simulated buses). */
export const portsOf = (p: Pick<Platform, 'i2c'>): I2cPorts => p.i2c || kalumaI2c;

/**
 * What both steps need first: the bus (opened at the sensor's first step),
 * its operations and the kind's driver; undefined after a failure, said.
 */
function ready(s: I2cSensor): [I2cEnv, I2cBusState, I2cBus, Driver] | undefined {
  const e = s.env_;
  if (!e) return undefined;
  const cfg = s.cfg_;
  const n = cfg.bus || 0;
  const ports = portsOf(e.p);
  let b = e.buses[n];
  if (!b) {
    try {
      b = e.buses[n] = { h: ports.open(n, cfg.sda as number, cfg.scl as number, cfg.freqHz || 100000), stuck: undefined };
    } catch (err) {
      return void fail(s, e, undefined, 'cannot open bus ' + n + ' on SDA GP' + String(cfg.sda) + ', SCL GP' + String(cfg.scl) + ': ' + String(err));
    }
  }
  const m = e.load<Driver>(cfg.kind);
  if (!m.ok) return void fail(s, e, undefined, 'the ' + cfg.kind + ' driver: ' + m.error);
  return [e, b, ports.use(b.h), m.value];
}

/** A conversion started (the part readied first when it is not): the cold module 'i2c-go'. */
export function goI2c(s: I2cSensor): void {
  const r = ready(s);
  if (!r) return;
  const [e, b, port, d] = r;
  const addr = s.cfg_.address as number;
  if (!s.chip_) {
    const st = d.init_(port, addr, (what) => e.p.log.info('sensor ' + s.name + ': ' + what));
    if (typeof st === 'string') return fail(s, e, b, st, port);
    s.chip_ = st;
  }
  const ms = d.start_(port, addr, s.chip_);
  if (typeof ms === 'string') return fail(s, e, b, ms, port);
  s.phase_ = 1;
  s.wait_ = e.p.timers.setTimeout(s.next_, ms);
}

/** The conversion read, each quantity calibrated, filtered and handed on: the cold module 'i2c-read'. */
export function readI2c(s: I2cSensor): void {
  s.phase_ = 0;
  const r = ready(s);
  if (!r) return;
  const [e, b, port, d] = r;
  const cfg = s.cfg_;
  const qs = quantitiesOf(cfg.kind) as string[];
  const filters = s.filters_ || quantities(s, e, qs);
  const v = s.chip_ ? d.read_(port, cfg.address as number, s.chip_) : 'not readied';
  if (typeof v === 'string') return fail(s, e, b, v, port);
  const at = e.p.clock.uptimeMs();
  s.at_ = at;
  s.reads_++;
  b.stuck = undefined;
  if (s.error_ !== undefined) {
    e.p.log.info('sensor ' + s.name + ': reading again (' + s.failures_ + ' failures so far)');
    s.error_ = undefined;
  }
  const c = cfg as unknown as Record<string, unknown>;
  for (let i = 0; i < qs.length; i++) {
    const x = v[i] as number;
    // NaN: a quantity this part has not (a BMP280's humidity).
    if (x !== x) continue;
    const q = qs[i] as string;
    const scale = c[q + 'Scale'];
    const value = x * (scale === undefined ? 1 : (scale as number)) + ((c[q + 'Offset'] as number) || 0);
    s.last_[i] = value;
    const out = (filters[i] as Filter).push(value, at);
    if (out !== undefined && isFinite(out)) e.emit({ sensor: s.name + '.' + q, base: s.name, value: out, unit: UNITS[q] as string, atMs: at });
  }
}

/** Each quantity's filters, and no last value yet: made at the sensor's first step. */
function quantities(s: I2cSensor, e: I2cEnv, qs: string[]): Filter[] {
  const c = s.cfg_ as unknown as Record<string, unknown>;
  const filters: Filter[] = [];
  for (const q of qs) {
    filters.push(e.chain((c[q + 'Filters'] as typeof s.cfg_.filters | undefined) || s.cfg_.filters));
    s.last_.push(NaN);
  }
  return (s.filters_ = filters);
}

/**
 * A failed step: counted, logged when it differs from the last, the part
 * readied again at the next period, its last readings dropped (not sent
 * again as if new), a held bus freed and said so once.
 */
function fail(s: I2cSensor, e: I2cEnv, b: I2cBusState | undefined, why: string, port?: I2cBus): void {
  s.failures_++;
  s.chip_ = undefined;
  s.phase_ = 0;
  const log = e.p.log;
  if (s.error_ === undefined) {
    const qs = quantitiesOf(s.cfg_.kind) as string[];
    const at = e.p.clock.uptimeMs();
    for (let i = 0; i < s.last_.length; i++) {
      if (s.last_[i] !== s.last_[i]) continue;
      s.last_[i] = NaN;
      const q = qs[i] as string;
      e.emit({ sensor: s.name + '.' + q, base: s.name, value: NaN, unit: UNITS[q] as string, atMs: at });
    }
  }
  if (why !== s.error_) {
    log.error('sensor ' + s.name + ' (' + s.cfg_.kind + ' at 0x' + (s.cfg_.address as number).toString(16) + ', bus ' + String(s.cfg_.bus) + '): ' + why + '; tried again every period');
    s.error_ = why;
  }
  if (!b || !port) return;
  const held = port.stuck();
  if (held !== b.stuck) {
    b.stuck = held;
    if (held) log.error('i2c bus ' + String(s.cfg_.bus) + ': ' + held + '; ' + port.recover());
  } else if (held) port.recover();
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
