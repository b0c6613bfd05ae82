// BME280 (0x76/0x77), and the BMP280 that shares its registers and has no
// humidity: trimming read once, then one forced conversion per sample at
// oversampling x1 with the filter off, compensated by the datasheet's
// floating-point formulas (BME280 datasheet, appendix 8.1).
import type { I2cTransfers } from '../../../ports/ports';
import type { Driver, DriverInit, DriverSteps } from '../driver';
import { transfer } from '../transfer';

/** Where each trimming parameter is in the chip's list (dig_T1 is T1); one small-integer array costs less heap than an object. */
const enum K { T1, T2, T3, P1, P2, P3, P4, P5, P6, P7, P8, P9, H1, H2, H3, H4, H5, H6 }

/**
 * The trimming, in K's order, from 0x88..0xA1 (`a`: little-endian words,
 * dig_T1 and dig_P1 unsigned, then dig_H1 at 0xA1) and 0xE1..0xE7 (`h`; a
 * BMP280 has none).
 */
function parseTrim(a: Uint8Array, h: Uint8Array | undefined): number[] {
  const k: number[] = [];
  for (let i = 0; i < 24; i += 2) {
    const w = a[i]! | (a[i + 1]! << 8);
    k.push(i === 0 || i === 6 ? w : (w << 16) >> 16);
  }
  k.push(a[25]!);
  if (h) {
    // H2 int16, H3 uint8; H4 and H5 are 12-bit signed and share 0xE5: H4 is
    // 0xE4 then 0xE5's low nibble, H5 is 0xE6 then its high nibble; H6 int8.
    k.push((((h[1]! << 8) | h[0]!) << 16) >> 16, h[2]!, ((h[3]! << 24) >> 20) | (h[4]! & 15), ((h[5]! << 24) >> 20) | (h[4]! >> 4), (h[6]! << 24) >> 24);
  }
  return k;
}

/** Temperature C, humidity %RH (NaN on a BMP280), pressure hPa from the burst 0xF7..0xFE; or why not. */
function compensate(k: number[], d: Uint8Array): number[] | string {
  const adcP = (d[0]! << 12) | (d[1]! << 4) | (d[2]! >> 4);
  const adcT = (d[3]! << 12) | (d[4]! << 4) | (d[5]! >> 4);
  const adcH = d.length > 6 ? (d[6]! << 8) | d[7]! : -1;
  // What the data registers hold when a quantity was not measured (and after
  // a reset): 0x80000 for T and P, 0x8000 for H; one message for the three.
  if (adcT === 0x80000 || adcP === 0x80000 || adcH === 0x8000) return 'measurement skipped (raw 0x80000)';
  let v1 = (adcT / 16384 - k[K.T1]! / 1024) * k[K.T2]!;
  let v2 = adcT / 131072 - k[K.T1]! / 8192;
  const tFine = v1 + v2 * v2 * k[K.T3]!;

  v1 = tFine / 2 - 64000;
  v2 = (v1 * v1 * k[K.P6]!) / 32768 + v1 * k[K.P5]! * 2;
  v2 = v2 / 4 + k[K.P4]! * 65536;
  v1 = ((k[K.P3]! * v1 * v1) / 524288 + k[K.P2]! * v1) / 524288;
  v1 = (1 + v1 / 32768) * k[K.P1]!;
  let p = ((1048576 - adcP - v2 / 4096) * 6250) / v1;
  p += ((k[K.P9]! * p * p) / 2147483648 + (p * k[K.P8]!) / 32768 + k[K.P7]!) / 16;

  let h = NaN;
  if (adcH >= 0) {
    h = tFine - 76800;
    h = (adcH - (k[K.H4]! * 64 + (k[K.H5]! / 16384) * h)) * ((k[K.H2]! / 65536) * (1 + (k[K.H6]! / 67108864) * h * (1 + (k[K.H3]! / 67108864) * h)));
    h *= 1 - (k[K.H1]! * h) / 524288;
    h = h < 0 ? 0 : h > 100 ? 100 : h;
  }
  return [tFine / 5120, h, p / 100];
}

/** A BME280's state: its 18 trimming numbers (a BMP280 has 13: no humidity). */
const isBme = (k: number[]): boolean => k.length > 13;

/** Readies the chip: the cold module 'bme280-init'. */
export const init: DriverInit = (bus, addr, note) => {
  const id = transfer(bus, addr, 'reading chip id', [0xd0], 1);
  if (typeof id === 'string') return id;
  const bme = id[0] === 0x60;
  if (!bme && id[0] !== 0x58) return 'chip id 0x' + (0x100 + id[0]!).toString(16).slice(1) + ' is not a BME280 (0x60) or BMP280 (0x58)';
  const a = transfer(bus, addr, 'reading trimming', [0x88], 26);
  if (typeof a === 'string') return a;
  const h = bme ? transfer(bus, addr, 'reading trimming', [0xe1], 7) : undefined;
  if (typeof h === 'string') return h;
  const k = parseTrim(a, h);
  // dig_P1 divides the pressure: zero is no chip's trimming.
  if (!k[K.P1]) return 'reading trimming: dig_P1 is 0';
  // Sleep, so that config is taken; filter off (register/value pairs in one write).
  const w = transfer(bus, addr, 'writing settings', [0xf4, 0x00, 0xf5, 0x00], 0);
  if (w !== undefined) return w;
  if (!bme) note('BMP280 (no humidity)');
  return k;
};

/** Starts a conversion. */
function start_(bus: I2cTransfers, addr: number, k: number[]): number | string {
  // ctrl_hum (x1) counts only once ctrl_meas is written after it: T and P x1, forced mode.
  const s = transfer(bus, addr, 'starting a measurement', isBme(k) ? [0xf2, 0x01, 0xf4, 0x25] : [0xf4, 0x25], 0);
  // 1.25 + 2.3 + (2.3 + 0.575) * 2 = 9.3 ms at most (datasheet 9.1), rounded up.
  return s === undefined ? 10 : s;
}

/** Reads and compensates the conversion. */
function read_(bus: I2cTransfers, addr: number, k: number[]): number[] | string {
  const d = transfer(bus, addr, 'reading the measurement', [0xf7], isBme(k) ? 8 : 6);
  return typeof d === 'string' ? d : compensate(k, d);
}

/** A sample's steps: the cold module 'bme280'. */
export const steps: DriverSteps = { start_, read_ };

export const driver: Driver = { init_: init, start_, read_ };
