// Simulated I2C chips, each answering as its datasheet says, for the
// simulated buses (host/ports/i2c.ts). Each converts a target that may move
// with time (a function, asked at the start of each conversion) into the raw
// values the chip would send, and takes as long to convert as the
// datasheet's maximum: a driver that reads too early gets what the real chip
// gives (the previous values, or no answer).
//
// - BME280 (Bosch BST-BME280-DS002): chip id 0xD0, trimming 0x88..0xA1 and
//   0xE1..0xE7, ctrl_hum 0xF2 (taken at the next ctrl_meas write), status 0xF3,
//   ctrl_meas 0xF4 (forced mode: one conversion, then sleep), data 0xF7..0xFE
//   (reset value 0x80000 / 0x8000, also what a skipped measurement gives).
//   A write is register address/data pairs, or one register address that a
//   read then goes on from. The raw values are the datasheet's
//   double-precision compensation run backwards, by bisection on the raw value.
// - SHT4x (Sensirion): 0xFD (high precision, 8.3 ms) and friends; 6 bytes,
//   each 16-bit word followed by its CRC-8 (polynomial 0x31, init 0xFF).
// - SHT3x (Sensirion): 0x2400 (single shot, high repeatability, no clock
//   stretching, 15.5 ms) and friends; same words and CRC.
// - BH1750 (ROHM): 0x01 power on, 0x20 one-time high resolution (180 ms,
//   then power down), 2 bytes: lux * 1.2.
import type { Clock } from '../../src/ports/ports';
import type { SimChip, SimFaults, SimI2c } from './i2c';

/** The BME280's trimming parameters (dig_T1.., dig_P1.., dig_H1..), as its datasheet names them. */
export interface Bme280Trim {
  T1: number; T2: number; T3: number;
  P1: number; P2: number; P3: number; P4: number; P5: number; P6: number; P7: number; P8: number; P9: number;
  H1: number; H2: number; H3: number; H4: number; H5: number; H6: number;
}

/**
 * A chip's trimming: temperature and pressure are the worked example of the
 * BMP280 datasheet (its section 3.12), humidity values as a BME280 carries them.
 */
export const BME280_TRIM: Bme280Trim = {
  T1: 27504, T2: 26435, T3: -1000,
  P1: 36477, P2: -10685, P3: 3024, P4: 2855, P5: 140, P6: -7, P7: 15500, P8: -14600, P9: 6000,
  H1: 75, H2: 362, H3: 0, H4: 313, H5: 50, H6: 30,
};

/** What a BME280 measures: degrees C, %RH, hPa. */
export interface AirTarget {
  tempC: number;
  humidity: number;
  hPa: number;
}

/** The datasheet's compensation (double precision, section 8.1): raw values to degrees C, %RH and Pa, t_fine carried as it says. */
export function bme280Compensate(t: Bme280Trim, adcT: number, adcP: number, adcH: number): { tempC: number; tFine: number; pa: number; humidity: number } {
  const a = adcT / 16384 - t.T1 / 1024;
  const b = adcT / 131072 - t.T1 / 8192;
  const v1 = a * t.T2;
  const v2 = b * b * t.T3;
  const tFine = Math.trunc(v1 + v2);
  return { tempC: (v1 + v2) / 5120, tFine, pa: bme280Pressure(t, tFine, adcP), humidity: bme280Humidity(t, tFine, adcH) };
}

function bme280Pressure(t: Bme280Trim, tFine: number, adcP: number): number {
  let v1 = tFine / 2 - 64000;
  let v2 = (v1 * v1 * t.P6) / 32768;
  v2 = v2 + v1 * t.P5 * 2;
  v2 = v2 / 4 + t.P4 * 65536;
  v1 = ((t.P3 * v1 * v1) / 524288 + t.P2 * v1) / 524288;
  v1 = (1 + v1 / 32768) * t.P1;
  if (v1 === 0) return 0;
  let p = 1048576 - adcP;
  p = ((p - v2 / 4096) * 6250) / v1;
  v1 = (t.P9 * p * p) / 2147483648;
  v2 = (p * t.P8) / 32768;
  return p + (v1 + v2 + t.P7) / 16;
}

function bme280Humidity(t: Bme280Trim, tFine: number, adcH: number): number {
  let h = tFine - 76800;
  h = (adcH - (t.H4 * 64 + (t.H5 / 16384) * h)) * ((t.H2 / 65536) * (1 + (t.H6 / 67108864) * h * (1 + (t.H3 / 67108864) * h)));
  h = h * (1 - (t.H1 * h) / 524288);
  return Math.min(100, Math.max(0, h));
}

/** The whole number in [0, max] whose f is nearest `want`; f monotonic (either way). */
export function invert(f: (raw: number) => number, want: number, max: number): number {
  const up = f(max) >= f(0);
  let lo = 0;
  let hi = max;
  // The first raw value at or past `want` in f's direction.
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (up ? f(mid) >= want : f(mid) <= want) hi = mid;
    else lo = mid + 1;
  }
  return lo > 0 && Math.abs(f(lo - 1) - want) <= Math.abs(f(lo) - want) ? lo - 1 : lo;
}

/** The raw values a BME280 with this trimming gives for the target (20-bit temperature and pressure, 16-bit humidity). */
export function bme280Raw(t: Bme280Trim, want: AirTarget): { adcT: number; adcP: number; adcH: number } {
  const adcT = invert((r) => bme280Compensate(t, r, 0, 0).tempC, want.tempC, 0xfffff);
  const tFine = bme280Compensate(t, adcT, 0, 0).tFine;
  const adcP = invert((r) => bme280Pressure(t, tFine, r), want.hPa * 100, 0xfffff);
  const adcH = invert((r) => bme280Humidity(t, tFine, r), want.humidity, 0xffff);
  return { adcT, adcP, adcH };
}

/** The trimming as the chip stores it: 26 bytes from 0x88 and 7 from 0xE1, little-endian, H4 and H5 12-bit. */
export function bme280TrimBytes(t: Bme280Trim): { at88: number[]; atE1: number[] } {
  const le = (v: number): number[] => [v & 0xff, (v >> 8) & 0xff];
  const at88 = [t.T1, t.T2, t.T3, t.P1, t.P2, t.P3, t.P4, t.P5, t.P6, t.P7, t.P8, t.P9].flatMap(le);
  at88.push(0, t.H1 & 0xff);
  const atE1 = [...le(t.H2), t.H3 & 0xff, (t.H4 >> 4) & 0xff, (t.H4 & 0x0f) | ((t.H5 & 0x0f) << 4), (t.H5 >> 4) & 0xff, t.H6 & 0xff];
  return { at88, atE1 };
}

/** Oversampling factor of a 3-bit osrs field (0: skipped). */
const OVERSAMPLING = [0, 1, 2, 4, 8, 16, 16, 16];

/** The datasheet's maximum measurement time (its section 9.1), in ms, for the three osrs fields. */
export function bme280MeasureMs(osrsT: number, osrsP: number, osrsH: number): number {
  const [t, p, h] = [osrsT, osrsP, osrsH].map((x) => OVERSAMPLING[x & 7] ?? 0) as [number, number, number];
  return 1.25 + (t ? 2.3 * t : 0) + (p ? 2.3 * p + 0.575 : 0) + (h ? 2.3 * h + 0.575 : 0);
}

export function simBme280(o: { target: () => AirTarget; trim?: Bme280Trim; chipId?: number }): (faults: SimFaults) => SimChip {
  const trim = o.trim ?? BME280_TRIM;
  const id = o.chipId ?? 0x60;
  const humid = id === 0x60;
  return (faults) => {
    const reg = new Uint8Array(256);
    let pointer = 0;
    let humOsrs = 0;
    /** The conversion under way: when it ends and what it measures. */
    let conv: { endsAt: number; osrs: [number, number, number]; want: AirTarget } | undefined;
    let last: AirTarget | undefined;
    const reset = (): void => {
      reg.fill(0);
      reg[0xd0] = id;
      const { at88, atE1 } = bme280TrimBytes(trim);
      reg.set(at88, 0x88);
      if (humid) reg.set(atE1, 0xe1);
      reg.set([0x80, 0, 0, 0x80, 0, 0, 0x80, 0], 0xf7);
      pointer = 0;
      humOsrs = 0;
      conv = undefined;
      last = undefined;
    };
    // Ends a conversion whose time is up: the data registers take its values, the chip sleeps.
    const settle = (now: number): void => {
      if (!conv || now < conv.endsAt) return;
      const [osrsT, osrsP, osrsH] = conv.osrs;
      const raw = bme280Raw(trim, conv.want);
      const skip = faults.skipped;
      const t = osrsT && !skip ? raw.adcT : 0x80000;
      const p = osrsP && !skip ? raw.adcP : 0x80000;
      const h = humid && osrsH && !skip ? raw.adcH : 0x8000;
      reg.set([p >> 12, (p >> 4) & 0xff, (p & 0xf) << 4, t >> 12, (t >> 4) & 0xff, (t & 0xf) << 4, h >> 8, h & 0xff], 0xf7);
      reg[0xf4] = reg[0xf4]! & 0xfc;
      reg[0xf3] = 0;
      last = skip ? undefined : conv.want;
      conv = undefined;
    };
    const put = (addr: number, v: number, now: number): void => {
      if (addr === 0xe0 && v === 0xb6) return reset();
      if (addr === 0xf2 && humid) reg[0xf2] = v & 0x07;
      else if (addr === 0xf5) reg[0xf5] = v;
      else if (addr === 0xf4) {
        reg[0xf4] = v;
        // ctrl_hum counts from this write on (datasheet 5.4.3).
        humOsrs = reg[0xf2]! & 0x07;
        const mode = v & 0x03;
        if ((mode === 1 || mode === 2) && !conv) {
          const osrs: [number, number, number] = [(v >> 5) & 7, (v >> 2) & 7, humOsrs];
          conv = { endsAt: now + bme280MeasureMs(...osrs), osrs, want: o.target() };
          reg[0xf3] = 0x08;
        }
      }
    };
    reset();
    return {
      write(bytes, now) {
        settle(now);
        // One byte sets the register address reads go on from; more are address/data pairs.
        pointer = bytes[0]!;
        for (let i = 0; i + 1 < bytes.length; i += 2) put(bytes[i]!, bytes[i + 1]!, now);
        return bytes.length;
      },
      read(length, now) {
        settle(now);
        const out = new Uint8Array(length);
        for (let i = 0; i < length; i++) out[i] = reg[(pointer + i) & 0xff]!;
        pointer = (pointer + length) & 0xff;
        return out;
      },
      reset,
      kind: humid ? 'bme280' : 'bmp280',
      last: (): Record<string, number> | undefined => {
        if (!last) return undefined;
        const q: Record<string, number> = { temperature: last.tempC, pressure: last.hPa };
        if (humid) q.humidity = last.humidity;
        return q;
      },
    };
  };
}

/** Sensirion's CRC-8 of one 16-bit word: polynomial 0x31, initial value 0xFF. */
export function crc8(msb: number, lsb: number): number {
  let c = 0xff;
  for (const b of [msb, lsb]) {
    c ^= b;
    for (let i = 0; i < 8; i++) c = c & 0x80 ? ((c << 1) ^ 0x31) & 0xff : (c << 1) & 0xff;
  }
  return c;
}

/** What an SHT measures: degrees C and %RH. */
export interface ShtTarget {
  tempC: number;
  humidity: number;
}

/** Two words with their CRCs; under 'corruptCrc' the second word's CRC is wrong (a driver that checks only the first misses it). */
function shtBytes(t: number, h: number, faults: SimFaults): Uint8Array {
  const w = (x: number): number => Math.min(0xffff, Math.max(0, Math.round(x)));
  const [st, sh] = [w(t), w(h)];
  const bytes = [st >> 8, st & 0xff, crc8(st >> 8, st & 0xff), sh >> 8, sh & 0xff, crc8(sh >> 8, sh & 0xff)];
  if (faults.corruptCrc) bytes[5] = bytes[5]! ^ 0x5a;
  return new Uint8Array(bytes);
}

/**
 * The shared behaviour of both SHT families: a command starts a conversion;
 * while it runs the chip does not acknowledge its address; its words are
 * read once, after which a read is not acknowledged until the next command.
 */
function shtChip(faults: SimFaults, o: { kind: string; commands: Record<number, number>; reset: number; serial?: number; size: number; encode: (w: ShtTarget) => Uint8Array; target: () => ShtTarget }): SimChip {
  let conv: { endsAt: number; want: ShtTarget } | undefined;
  let data: Uint8Array | undefined;
  let last: ShtTarget | undefined;
  const reset = (): void => {
    conv = undefined;
    data = undefined;
    last = undefined;
  };
  const busy = (now: number): boolean => {
    if (conv && now >= conv.endsAt) {
      data = o.encode(conv.want);
      last = conv.want;
      conv = undefined;
    }
    return conv !== undefined;
  };
  return {
    write(bytes, now) {
      if (busy(now)) return undefined;
      if (bytes.length < o.size) return bytes.length;
      const cmd = o.size === 2 ? (bytes[0]! << 8) | bytes[1]! : bytes[0]!;
      if (cmd === o.reset) reset();
      else if (cmd === o.serial) data = shtBytes(0x2f1a, 0x5c07, faults);
      else if (o.commands[cmd] !== undefined) {
        data = undefined;
        conv = { endsAt: now + o.commands[cmd], want: o.target() };
      } else return o.size - 1;
      return Math.min(bytes.length, o.size);
    },
    read(length, now) {
      if (busy(now) || !data) return undefined;
      const out = new Uint8Array(length).fill(0xff);
      out.set(data.subarray(0, length));
      data = undefined;
      return out;
    },
    reset,
    kind: o.kind,
    last: () => last && { temperature: last.tempC, humidity: last.humidity },
  };
}

/** An SHT40/41/45: 0xFD, 0xF6, 0xE0 (high, medium, low precision; max ms per its datasheet), 0x94 soft reset, 0x89 serial number (two words). */
export function simSht4x(o: { target: () => ShtTarget }): (faults: SimFaults) => SimChip {
  return (faults) =>
    shtChip(faults, {
      kind: 'sht4x',
      commands: { 0xfd: 8.3, 0xf6: 4.5, 0xe0: 1.7 },
      reset: 0x94,
      serial: 0x89,
      size: 1,
      encode: (w) => shtBytes(((w.tempC + 45) * 65535) / 175, ((w.humidity + 6) * 65535) / 125, faults),
      target: o.target,
    });
}

/** An SHT30/31/35: single shot without clock stretching, 0x2400 / 0x240B / 0x2416 (high, medium, low repeatability), 0x30A2 soft reset. */
export function simSht3x(o: { target: () => ShtTarget }): (faults: SimFaults) => SimChip {
  return (faults) =>
    shtChip(faults, {
      kind: 'sht3x',
      commands: { 0x2400: 15.5, 0x240b: 6.5, 0x2416: 4.5 },
      reset: 0x30a2,
      size: 2,
      encode: (w) => shtBytes(((w.tempC + 45) * 65535) / 175, (w.humidity * 65535) / 100, faults),
      target: o.target,
    });
}

/**
 * A BH1750: power down (0x00), power on (0x01), reset of its data register
 * (0x07, only when powered), one-time modes 0x20 (high resolution, 180 ms),
 * 0x21 (high resolution 2, 180 ms) and 0x23 (low, 24 ms), which power it down
 * when done. Until a conversion ends a read gives the previous result.
 */
export function simBh1750(o: { lux: () => number }): (faults: SimFaults) => SimChip {
  const MODES: Record<number, [number, number]> = { 0x20: [180, 1.2], 0x21: [180, 2.4], 0x23: [24, 1.2] };
  return () => {
    let on = false;
    let raw = 0;
    let conv: { endsAt: number; raw: number; lux: number } | undefined;
    let last: number | undefined;
    const settle = (now: number): void => {
      if (conv && now >= conv.endsAt) {
        raw = conv.raw;
        last = conv.lux;
        conv = undefined;
        on = false;
      }
    };
    const reset = (): void => {
      on = false;
      raw = 0;
      conv = undefined;
      last = undefined;
    };
    return {
      write(bytes, now) {
        settle(now);
        for (const b of bytes) {
          const mode = MODES[b];
          if (b === 0x00) on = false;
          else if (b === 0x01) on = true;
          else if (b === 0x07) raw = on ? 0 : raw;
          else if (mode) {
            const lux = o.lux();
            conv = { endsAt: now + mode[0], raw: Math.min(0xffff, Math.max(0, Math.round(lux * mode[1]))), lux };
          }
        }
        return bytes.length;
      },
      read(length, now) {
        settle(now);
        const out = new Uint8Array(length).fill(0xff);
        out.set([raw >> 8, raw & 0xff].slice(0, length));
        return out;
      },
      reset,
      kind: 'bh1750',
      last: () => (last === undefined ? undefined : { illuminance: last }),
    };
  };
}

/**
 * The simulated board's chips, on bus 0 (npm start): a BME280 at 0x76 (air
 * about 21 C, 45 %RH, 1013 hPa), an SHT4x at 0x44 (a leaf, a little cooler
 * and damper) and a BH1750 at 0x23 (daylight on the same day curve as the
 * simulated ADC light, a simulated day lasting `dayMs`), all drifting slowly.
 */
export function attachBoardChips(i2c: SimI2c, o: { clock: Clock; dayMs?: number; random?: () => number }): void {
  const random = o.random ?? Math.random;
  const dayMs = o.dayMs ?? 600000;
  const wave = (periodMs: number): number => Math.sin((2 * Math.PI * o.clock.uptimeMs()) / periodMs);
  const noise = (size: number): number => (random() - 0.5) * size;
  i2c.attach(0, 0x76, simBme280({ target: () => ({ tempC: 21 + 1.5 * wave(dayMs * 1.7) + noise(0.1), humidity: 45 + 5 * wave(dayMs * 2.3) + noise(0.4), hPa: 1013 + 3 * wave(dayMs * 5) + noise(0.05) }) }));
  i2c.attach(0, 0x44, simSht4x({ target: () => ({ tempC: 20 + 1.2 * wave(dayMs * 1.7) + noise(0.1), humidity: 55 + 6 * wave(dayMs * 2.3) + noise(0.4) }) }));
  i2c.attach(0, 0x23, simBh1750({ lux: () => 5 + 20000 * Math.max(0, wave(dayMs)) + noise(20) }));
}
