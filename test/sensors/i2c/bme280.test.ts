import { describe, expect, it } from 'vitest';
import { I2C_KINDS } from '../../../src/sensors/i2c/kinds';
import { driver } from '../../../src/sensors/i2c/drivers/bme280';
import { type Bme280Trim, fakeBme280, fakeBus, type FakeBme280, chipOf, readyOn, sampleOf } from './fake-bus';

// The BMP280 datasheet's worked example (table "Compensation formula in 32 and
// 64 bit fixed point"/floating point): 25.08 C and 100653.27 Pa.
const EXAMPLE = { t1: 27504, t2: 26435, t3: -1000, p1: 36477, p2: -10685, p3: 3024, p4: 2855, p5: 140, p6: -7, p7: 15500, p8: -14600, p9: 6000 };
// Humidity trimming as a BME280 has it.
const H = { h1: 75, h2: 362, h3: 0, h4: 316, h5: 50, h6: 30 };
const TRIM: Bme280Trim = { ...EXAMPLE, ...H };

const ready = (dev: FakeBme280, addr = 0x76): ReturnType<typeof readyOn> => readyOn(driver, dev, addr);

const sample = sampleOf;

/** The datasheet's 32-bit integer t_fine and humidity (%RH as Q22.10 / 1024), with C's int32 arithmetic. */
function integerTFine(adcT: number, k: Bme280Trim): number {
  const v1 = Math.imul((adcT >> 3) - (k.t1 << 1), k.t2) >> 11;
  const d = (adcT >> 4) - k.t1;
  const v2 = Math.imul(Math.imul(d, d) >> 12, k.t3) >> 14;
  return v1 + v2;
}
function integerHumidity(adcH: number, tFine: number, k: Bme280Trim): number {
  let x = tFine - 76800;
  const a = ((adcH << 14) - (k.h4 << 20) - Math.imul(k.h5, x) + 16384) >> 15;
  const b1 = Math.imul(x, k.h6) >> 10;
  const b2 = (Math.imul(x, k.h3) >> 11) + 32768;
  const b3 = (Math.imul(b1, b2) >> 10) + 2097152;
  const b = (Math.imul(b3, k.h2) + 8192) >> 14;
  x = Math.imul(a, b);
  x -= Math.imul(Math.imul(x >> 15, x >> 15) >> 7, k.h1) >> 4;
  x = x < 0 ? 0 : x > 419430400 ? 419430400 : x;
  return (x >> 12) / 1024;
}

describe('bme280 driver: the datasheet arithmetic', () => {
  it("gives the datasheet's worked example: adc_T 519888 -> 25.08 C, adc_P 415148 -> 100653.27 Pa", () => {
    const { chip } = ready(fakeBme280({ trim: TRIM, adc: { t: 519888, p: 415148, h: 30000 } }));
    const [t, , p] = sample(chip) as number[];
    expect(t).toBeCloseTo(25.08, 2);
    // hPa, to the datasheet's 0.01 Pa.
    expect(p).toBeCloseTo(1006.5327, 4);
  });

  it('reads the trimming from the raw register bytes (little-endian; dig_T1 and dig_P1 unsigned)', () => {
    const dev = fakeBme280({ adc: { t: 519888, p: 415148, h: 30000 } });
    // The example's trimming as the chip stores it, 0x88..0x9F.
    dev.regs.set([0x70, 0x6b, 0x43, 0x67, 0x18, 0xfc, 0x7d, 0x8e, 0x43, 0xd6, 0xd0, 0x0b, 0x27, 0x0b, 0x8c, 0x00, 0xf9, 0xff, 0x8c, 0x3c, 0xf8, 0xc6, 0x70, 0x17], 0x88);
    dev.regs[0xa1] = 75;
    // 0xE1..0xE7: H2 = 0x016A = 362, H3 = 0, H4 = 0x13 then nibble 0xC = 316, H5 = 0x03 then nibble 0x2 = 50, H6 = 30.
    dev.regs.set([0x6a, 0x01, 0x00, 0x13, 0x2c, 0x03, 0x1e], 0xe1);
    const [t, h, p] = sample(ready(dev).chip) as number[];
    expect(t).toBeCloseTo(25.08, 2);
    expect(p).toBeCloseTo(1006.5327, 4);
    expect(Math.abs(h! - integerHumidity(30000, integerTFine(519888, TRIM), TRIM))).toBeLessThan(0.1);
  });

  it('reads negative H4 and H5 from the bytes they share 0xE5 with', () => {
    const dev = fakeBme280({ adc: { t: 519888, p: 415148, h: 10000 } });
    dev.regs.set([0x70, 0x6b, 0x43, 0x67, 0x18, 0xfc, 0x7d, 0x8e, 0x43, 0xd6, 0xd0, 0x0b, 0x27, 0x0b, 0x8c, 0x00, 0xf9, 0xff, 0x8c, 0x3c, 0xf8, 0xc6, 0x70, 0x17], 0x88);
    dev.regs[0xa1] = 75;
    // H2 = 362, H3 = 20, H4 = 0xFF then 0xB = -5, H5 = 0xFE then 0x9 = -23, H6 = 0xE2 = -30.
    dev.regs.set([0x6a, 0x01, 0x14, 0xff, 0x9b, 0xfe, 0xe2], 0xe1);
    const k = { ...EXAMPLE, h1: 75, h2: 362, h3: 20, h4: -5, h5: -23, h6: -30 };
    const [, h] = sample(ready(dev).chip) as number[];
    const want = integerHumidity(10000, integerTFine(519888, k), k);
    expect(want).toBeGreaterThan(1);
    expect(want).toBeLessThan(99);
    expect(Math.abs(h! - want)).toBeLessThan(0.1);
  });

  it("agrees with the datasheet's 32-bit integer humidity within 0.1 %RH over a range of readings", () => {
    const sets: Bme280Trim[] = [TRIM, { ...TRIM, h3: 20, h4: -5, h5: -23, h6: -30 }, { ...TRIM, h1: 0, h2: 400, h3: 255, h4: 300, h5: 40, h6: 127 }, { ...TRIM, h1: 255, h2: 300, h3: 0, h4: 330, h5: -60, h6: -128 }];
    let compared = 0;
    for (const k of sets) {
      for (const adcT of [420000, 480000, 519888, 560000]) {
        for (let adcH = 2000; adcH <= 44000; adcH += 2000) {
          const want = integerHumidity(adcH, integerTFine(adcT, k), k);
          if (want <= 0.5 || want >= 99.5) continue;
          const [, h] = sample(ready(fakeBme280({ trim: k, adc: { t: adcT, p: 415148, h: adcH } })).chip) as number[];
          expect(Math.abs(h! - want), `adc_T ${adcT} adc_H ${adcH} trim ${JSON.stringify(k)}`).toBeLessThan(0.1);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(30);
  });

  it('clamps humidity to 0..100 %RH', () => {
    const dev = fakeBme280({ trim: TRIM, adc: { t: 519888, p: 415148, h: 0xfff0 } });
    const { chip } = ready(dev);
    expect((sample(chip) as number[])[1]).toBe(100);
    dev.adc.h = 0;
    expect((sample(chip) as number[])[1]).toBe(0);
  });

  it('gives temperature, humidity, pressure in the kinds table order', () => {
    expect(I2C_KINDS.bme280![0]).toEqual(['temperature', 'humidity', 'pressure']);
    const [t, h, p] = sample(ready(fakeBme280({ trim: TRIM, adc: { t: 519888, p: 415148, h: 30000 } })).chip) as number[];
    expect(t! > 20 && t! < 30).toBe(true);
    expect(h! > 0 && h! < 100).toBe(true);
    expect(p! > 900 && p! < 1100).toBe(true);
  });
});

describe('bme280 driver: the chip', () => {
  it('reads the trimming once, and makes one forced conversion per start_ that lasts at most 10 ms', () => {
    const dev = fakeBme280({ trim: TRIM });
    const { chip, bus } = ready(dev);
    expect(dev.conversions).toBe(0);
    for (let i = 1; i <= 3; i++) {
      expect(chip.start_()).toBe(10);
      expect(dev.conversions).toBe(i);
      expect(typeof chip.read_()).toBe('object');
    }
    expect(bus.log.filter((l) => l === 'w 76 88').length).toBe(1);
    expect(bus.log.filter((l) => l === 'w 76 e1').length).toBe(1);
  });

  it('writes ctrl_hum (x1) before ctrl_meas (T and P x1, forced), and reads 0xF7..0xFE in one burst', () => {
    const { chip, bus } = ready(fakeBme280({ trim: TRIM }));
    bus.log.length = 0;
    chip.start_();
    chip.read_();
    expect(bus.log).toEqual(['w 76 f2 01 f4 25', 'w 76 f7', 'r 76 8']);
  });

  it('puts the chip to sleep and the filter off at start, whatever a program before left', () => {
    const dev = fakeBme280({ trim: TRIM });
    dev.regs[0xf4] = 0x27;
    dev.regs[0xf5] = 0x1c;
    ready(dev);
    expect(dev.regs[0xf4] & 3).toBe(0);
    expect(dev.regs[0xf5] & 0x1c).toBe(0);
  });

  it('answers at 0x77 too', () => {
    const [t] = sample(ready(fakeBme280({ trim: TRIM }), 0x77).chip) as number[];
    expect(t).toBeCloseTo(25.08, 2);
  });

  it('takes a BMP280 (0x58): temperature and pressure, humidity NaN, said in note_; no ctrl_hum write', () => {
    const { chip, bus } = ready(fakeBme280({ id: 0x58, trim: TRIM }));
    expect(chip.note_).toBe('BMP280 (no humidity)');
    const [t, h, p] = sample(chip) as number[];
    expect(t).toBeCloseTo(25.08, 2);
    expect(h).toBeNaN();
    expect(p).toBeCloseTo(1006.5327, 4);
    expect(bus.log.some((l) => l.startsWith('w 76 f2'))).toBe(false);
    expect(bus.log.filter((l) => l === 'w 76 e1').length).toBe(0);
  });

  it('has no note_ on a BME280', () => {
    expect(ready(fakeBme280({ trim: TRIM })).chip.note_).toBeUndefined();
  });
});

describe('bme280 driver: failures', () => {
  it('says a wrong chip id, with the id in hex', () => {
    expect(chipOf(driver, fakeBus({ 0x76: fakeBme280({ id: 0x61, trim: TRIM }) }), 0x76)).toBe('chip id 0x61 is not a BME280 (0x60) or BMP280 (0x58)');
    expect(chipOf(driver, fakeBus({ 0x76: fakeBme280({ id: 0x0a, trim: TRIM }) }), 0x76)).toBe('chip id 0x0a is not a BME280 (0x60) or BMP280 (0x58)');
  });

  it('says when nothing answers at the address', () => {
    expect(chipOf(driver, fakeBus({ 0x77: fakeBme280({ trim: TRIM }) }), 0x76)).toBe('reading chip id: no answer');
  });

  it('says when the trimming cannot be read, or comes short', () => {
    const dev = fakeBme280({ trim: TRIM });
    dev.faults.onRead = (at) => (at === 0x88 ? 'no answer' : undefined);
    expect(chipOf(driver, fakeBus({ 0x76: dev }), 0x76)).toBe('reading trimming: no answer');
    dev.faults.onRead = (at, n) => (at === 0xe1 ? n - 1 : undefined);
    expect(chipOf(driver, fakeBus({ 0x76: dev }), 0x76)).toBe('reading trimming: 6 of 7 bytes');
    dev.faults.onRead = (at, n) => (at === 0x88 ? n - 2 : undefined);
    expect(chipOf(driver, fakeBus({ 0x76: dev }), 0x76)).toBe('reading trimming: 24 of 26 bytes');
  });

  it('refuses a trimming with dig_P1 0 (it divides the pressure)', () => {
    expect(chipOf(driver, fakeBus({ 0x76: fakeBme280({ trim: { ...TRIM, p1: 0 } }) }), 0x76)).toBe('reading trimming: dig_P1 is 0');
  });

  it('says when the settings cannot be written', () => {
    const dev = fakeBme280({ trim: TRIM });
    dev.faults.onWrite = (b) => (b.length > 1 ? 'no answer' : undefined);
    expect(chipOf(driver, fakeBus({ 0x76: dev }), 0x76)).toBe('writing settings: no answer');
  });

  it('says when a measurement cannot be started or read (NACK, short answer), and reads again once it answers', () => {
    const dev = fakeBme280({ trim: TRIM });
    const { chip } = ready(dev);
    dev.faults.nack = true;
    expect(chip.start_()).toBe('starting a measurement: no answer');
    expect(chip.read_()).toBe('reading the measurement: no answer');
    dev.faults.nack = false;
    dev.faults.onRead = (at, n) => (at === 0xf7 ? n - 1 : undefined);
    expect(chip.start_()).toBe(10);
    expect(chip.read_()).toBe('reading the measurement: 7 of 8 bytes');
    dev.faults.onRead = undefined;
    expect((sample(chip) as number[])[0]).toBeCloseTo(25.08, 2);
  });

  it('says "measurement skipped (raw 0x80000)" for raw temperature or pressure 0x80000 and humidity 0x8000', () => {
    const dev = fakeBme280({ trim: TRIM });
    const { chip } = ready(dev);
    dev.adc.t = 0x80000;
    expect(sample(chip)).toBe('measurement skipped (raw 0x80000)');
    dev.adc.t = 519888;
    dev.adc.p = 0x80000;
    expect(sample(chip)).toBe('measurement skipped (raw 0x80000)');
    dev.adc.p = 415148;
    dev.adc.h = 0x8000;
    expect(sample(chip)).toBe('measurement skipped (raw 0x80000)');
    dev.adc.h = 30000;
    expect(typeof sample(chip)).toBe('object');
  });

  it('says "measurement skipped" when the chip lost power between start_ and read_, and measures at the next start_', () => {
    const dev = fakeBme280({ trim: TRIM });
    const { chip } = ready(dev);
    chip.start_();
    dev.powerCycle();
    expect(chip.read_()).toBe('measurement skipped (raw 0x80000)');
    const v = sample(chip) as number[];
    expect(v[0]).toBeCloseTo(25.08, 2);
    expect(v[1]! > 0 && v[1]! < 100).toBe(true);
  });
});
