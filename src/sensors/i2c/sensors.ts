// The I2C sensors' steps: the cold module 'i2c', loaded for one step of one
// sensor and let go after it, with the kind's driver (the cold module of the
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
import type { Driver } from './driver';
import { I2C_KINDS, UNITS } from './kinds';
import type { I2cBusState, I2cEnv, I2cSensor } from './state';

/** The board's I2C, or the platform's own (a PC's simulated buses). */
export const portsOf = (p: Pick<Platform, 'i2c'>): I2cPorts => p.i2c || kalumaI2c;

/** Runs sensor `s`'s next step (its phase_). */
export function stepI2c(s: I2cSensor): void {
  const e = s.env_;
  if (!e) return;
  const cfg = s.cfg_;
  const n = cfg.bus || 0;
  const ports = portsOf(e.p_);
  let b = e.buses_[n];
  if (!b) {
    try {
      b = e.buses_[n] = { h_: ports.open(n, cfg.sda as number, cfg.scl as number, cfg.freqHz || 100000), stuck_: undefined };
    } catch (err) {
      return fail(s, e, undefined, 'cannot open bus ' + n + ' on SDA GP' + String(cfg.sda) + ', SCL GP' + String(cfg.scl) + ': ' + String(err));
    }
  }
  const port = ports.use(b.h_);
  const m = e.load_<Driver>(cfg.kind);
  if (!m.ok) return fail(s, e, undefined, 'the ' + cfg.kind + ' driver: ' + m.error);
  const d = m.value;
  const addr = cfg.address as number;
  if (!s.ids_) quantities(s, e);
  if (s.phase_ === 0) {
    if (!s.chip_) {
      const st = d.init_(port, addr, (what) => e.p_.log.info('sensor ' + s.name + ': ' + what));
      if (typeof st === 'string') return fail(s, e, b, st, port);
      s.chip_ = st;
    }
    const ms = d.start_(port, addr, s.chip_);
    if (typeof ms === 'string') return fail(s, e, b, ms, port);
    s.phase_ = 1;
    s.poll_ = e.p_.timers.setTimeout(s.next_, ms);
    return;
  }
  s.phase_ = 0;
  const v = s.chip_ ? d.read_(port, addr, s.chip_) : 'not readied';
  if (typeof v === 'string') return fail(s, e, b, v, port);
  const at = e.p_.clock.uptimeMs();
  s.at_ = at;
  s.reads_++;
  b.stuck_ = undefined;
  if (s.error_ !== undefined) {
    e.p_.log.info('sensor ' + s.name + ': reading again (' + s.failures_ + ' failures so far)');
    s.error_ = undefined;
  }
  for (let i = 0; i < s.units_.length; i++) {
    const x = v[i] as number;
    // NaN: a quantity this part has not (a BMP280's humidity).
    if (x !== x) continue;
    const value = x * (s.scales_[i] as number) + (s.offsets_[i] as number);
    s.last_[i] = value;
    const out = (s.filters_[i] as ReturnType<I2cEnv['chain_']>).push(value, at);
    if (out !== undefined && isFinite(out)) e.emit_({ sensor: (s.ids_ as string[])[i] as string, base: s.name, value: out, unit: s.units_[i] as string, atMs: at });
  }
}

/** Each quantity's name, unit, filters, scale and offset, made at the sensor's first step. */
function quantities(s: I2cSensor, e: I2cEnv): void {
  const c = s.cfg_ as unknown as Record<string, unknown>;
  const ids: string[] = [];
  for (const q of (I2C_KINDS[s.cfg_.kind] as [string[], number[]])[0]) {
    ids.push(s.name + '.' + q);
    s.units_.push(UNITS[q] as string);
    s.filters_.push(e.chain_((c[q + 'Filters'] as typeof s.cfg_.filters | undefined) || s.cfg_.filters));
    s.scales_.push(c[q + 'Scale'] === undefined ? 1 : (c[q + 'Scale'] as number));
    s.offsets_.push((c[q + 'Offset'] as number) || 0);
    s.last_.push(NaN);
  }
  s.ids_ = ids;
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
  const log = e.p_.log;
  if (s.error_ === undefined && s.ids_) {
    const at = e.p_.clock.uptimeMs();
    for (let i = 0; i < s.ids_.length; i++) {
      if (s.last_[i] !== s.last_[i]) continue;
      s.last_[i] = NaN;
      e.emit_({ sensor: s.ids_[i] as string, base: s.name, value: NaN, unit: s.units_[i] as string, atMs: at });
    }
  }
  if (why !== s.error_) {
    log.error('sensor ' + s.name + ' (' + s.cfg_.kind + ' at 0x' + (s.cfg_.address as number).toString(16) + ', bus ' + String(s.cfg_.bus) + '): ' + why + '; tried again every period');
    s.error_ = why;
  }
  if (!b || !port) return;
  const held = port.stuck();
  if (held !== b.stuck_) {
    b.stuck_ = held;
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
