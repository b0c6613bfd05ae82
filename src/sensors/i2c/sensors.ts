// The I2C sensors' steps: the cold modules 'i2c-go' and 'i2c-read', each
// loaded for one step of one sensor and let go after it, with the kind's
// driver (the cold module of the kind's name) and, on the board, the board's
// I2C transfers (src/ports/kaluma/i2c.ts, bundled in). A sample is two steps:
// the conversion started, then read on a timer after the part's conversion
// time, never by blocking the loop; each quantity then goes through its own
// calibration and filters to the agent. What a sensor keeps between steps is
// data (./state.ts).
//
// A step that fails (no answer, a CRC mismatch, a value the part marks as
// skipped) says why, and the sensor's step loads 'i2c-fail' (./fail.ts): only
// a failure pays for the code that handles one.
import { kalumaOpen, kalumaTransfers } from '../../ports/kaluma/i2c';
import type { I2cTransfers } from '../../ports/ports';
import type { Filter } from '../../filters/filter';
import type { DriverInit, DriverSteps } from './driver';
import { UNITS, quantitiesOf } from './kinds';
import { Q, S } from './state';
import type { I2cEnv, I2cState } from './state';

/** The open bus's transfers (the board's, or the platform's own: a PC's simulated buses), or why there are none. */
function transfers(st: I2cState, e: I2cEnv): I2cTransfers | string {
  const n = st[S.Cfg].bus || 0;
  const b = e.buses[n];
  return !b ? 'bus ' + n + ' is not open' : e.p.i2c ? e.p.i2c.use(b.h) : kalumaTransfers(b.h);
}

/** A cold module of the sensor's driver: its steps ('<kind>') or its readying ('<kind>-init'), or why it could not be loaded. */
function driverPart<T>(st: I2cState, e: I2cEnv, suffix: string): T | string {
  const kind = st[S.Cfg].kind;
  const m = e.load<T>(kind + suffix);
  return m.ok ? m.value : 'the ' + kind + ' driver: ' + m.error;
}

/** Opens the sensor's bus unless it is open: why it could not, or undefined. */
function open(st: I2cState, e: I2cEnv): string | undefined {
  const cfg = st[S.Cfg];
  const n = cfg.bus || 0;
  if (e.buses[n]) return undefined;
  try {
    const sda = cfg.sda as number;
    const scl = sda + 1;
    const hz = cfg.freqHz || 100000;
    const h = e.p.i2c ? e.p.i2c.open(n, sda, scl, hz) : kalumaOpen(n, sda, scl, hz);
    e.buses[n] = { h, stuck: undefined };
    return undefined;
  } catch (err) {
    return 'cannot open bus ' + n + ' on SDA GP' + String(cfg.sda) + ', SCL GP' + String((cfg.sda as number) + 1) + ': ' + String(err);
  }
}

/**
 * A conversion started: the cold module 'i2c-go'. The bus is opened and the
 * part readied first when they are not (the driver's readying, '<kind>-init',
 * loaded and let go before its steps are). Why it failed, or undefined.
 */
export function goI2c(st: I2cState): string | undefined {
  const e = st[S.Env] as I2cEnv;
  const cfg = st[S.Cfg];
  const addr = cfg.address as number;
  const why = open(st, e);
  if (why !== undefined) return why;
  const port = transfers(st, e);
  if (typeof port === 'string') return port;
  if (!st[S.Chip]) {
    const init = driverPart<DriverInit>(st, e, '-init');
    const c = typeof init === 'string' ? init : init(port, addr, (what) => e.p.log.info('sensor ' + cfg.name + ': ' + what));
    if (typeof c === 'string') return c;
    st[S.Chip] = c;
  }
  const d = driverPart<DriverSteps>(st, e, '');
  const ms = typeof d === 'string' ? d : d.start_(port, addr, st[S.Chip]);
  if (typeof ms === 'string') return ms;
  st[S.Phase] = 1;
  // Bound here, let go once the timer has fired: nothing kept per sensor between samples.
  st[S.Wait] = e.p.timers.setTimeout(st[S.Next].bind(undefined, st), ms);
  return undefined;
}

/** The conversion read, each quantity calibrated, filtered and handed on: the cold module 'i2c-read'. Why it failed, or undefined. */
export function readI2c(st: I2cState): string | undefined {
  st[S.Phase] = 0;
  const e = st[S.Env] as I2cEnv;
  const cfg = st[S.Cfg];
  const chip = st[S.Chip];
  const port = transfers(st, e);
  const d = typeof port === 'string' ? port : driverPart<DriverSteps>(st, e, '');
  const v = typeof d === 'string' ? d : chip ? d.read_(port as I2cTransfers, cfg.address as number, chip) : 'not readied';
  if (typeof v === 'string') return v;
  const qs = quantitiesOf(cfg.kind) as string[];
  // Each quantity's filters, and no last value yet: made at the first read.
  const c = cfg as unknown as Record<string, unknown>;
  if (st.length === (S.Quantities as number)) for (const q of qs) st.push(e.chain((c[q + 'Filters'] as typeof cfg.filters | undefined) || cfg.filters || []), NaN);
  const at = e.p.clock.uptimeMs();
  st[S.At] = at;
  st[S.Reads]++;
  (e.buses[cfg.bus || 0] as { stuck: string | undefined }).stuck = undefined;
  if (st[S.Error] !== undefined) {
    e.p.log.info('sensor ' + cfg.name + ': reading again (' + st[S.Failures] + ' failures so far)');
    st[S.Error] = undefined;
  }
  for (let i = 0; i < qs.length; i++) {
    const x = v[i] as number;
    // NaN: a quantity this part has not (a BMP280's humidity).
    if (x !== x) continue;
    const q = qs[i] as string;
    const scale = c[q + 'Scale'];
    const value = x * (scale === undefined ? 1 : (scale as number)) + ((c[q + 'Offset'] as number) || 0);
    const f = S.Quantities + Q.Size * i;
    st[f + Q.Last] = value;
    const out = (st[f + Q.Filter] as Filter).push(value, at);
    if (out !== undefined && isFinite(out)) e.emit({ sensor: cfg.name + '.' + q, base: cfg.name, value: out, unit: UNITS[q] as string, atMs: at });
  }
  return undefined;
}

/**
 * The 7-bit addresses that answer, 0x08 to 0x77 (the others are reserved):
 * each is asked for one byte. An SHT part refuses a read until it has
 * measured (and the RP2040 cannot send an address alone), so at 0x44-0x46
 * a refused read is followed by a one-byte write of 0x89: an SHT4x's serial
 * number request, a first byte an SHT3x ignores. Nothing else is written.
 */
export function scanBus(port: I2cTransfers): number[] {
  const found: number[] = [];
  for (let a = 0x08; a <= 0x77; a++) {
    if (typeof port.read(a, 1) !== 'string' || (a >= 0x44 && a <= 0x46 && port.write(a, [0x89]) !== 'no answer')) found.push(a);
  }
  return found;
}
