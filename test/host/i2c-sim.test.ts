// The simulated I2C buses and chips (host/ports/i2c.ts, i2c-chips.ts): each
// chip's register map and timing as its datasheet gives them, checked from
// the bus side with the datasheet's own numbers, and the faults a real bus
// has, as the board's port reports them.
import { describe, expect, it } from 'vitest';
import { createSimI2c, kalumaAcceptsPins } from '../../host/ports/i2c';
import type { SimI2c } from '../../host/ports/i2c';
import { attachBoardChips, BME280_TRIM, bme280Compensate, bme280MeasureMs, bme280Raw, crc8, simBh1750, simBme280, simSht3x, simSht4x } from '../../host/ports/i2c-chips';
import type { Bme280Trim } from '../../host/ports/i2c-chips';
import type { I2cBus } from '../../src/ports/ports';
import type { Driver } from '../../src/sensors/i2c/driver';
import { driver as bh1750 } from '../../src/sensors/i2c/drivers/bh1750';
import { driver as bme280 } from '../../src/sensors/i2c/drivers/bme280';
import { driver as sht3x } from '../../src/sensors/i2c/drivers/sht3x';
import { driver as sht4x } from '../../src/sensors/i2c/drivers/sht4x';
import { readied } from '../fakes/i2c-sample';
import type { Sampled } from '../fakes/i2c-sample';
import { createFakeTime } from '../fakes/time';

const AIR = { tempC: 21.37, humidity: 45.6, hPa: 1013.25 };
const LEAF = { tempC: 19.42, humidity: 61.3 };

function rig(): { sim: SimI2c; bus: I2cBus; time: ReturnType<typeof createFakeTime> } {
  const time = createFakeTime();
  const sim = createSimI2c({ clock: time.clock });
  return { sim, bus: sim.open(0, 4, 5, 100000), time };
}

const bytes = (r: Uint8Array | string): number[] => {
  if (typeof r === 'string') throw new Error('read failed: ' + r);
  return [...r];
};

/** The trimming read back as the datasheet's table 16 lays it out. */
function decodeTrim(b88: number[], bE1: number[]): Bme280Trim {
  const u16 = (b: number[], i: number): number => b[i]! | (b[i + 1]! << 8);
  const s16 = (b: number[], i: number): number => (u16(b, i) << 16) >> 16;
  const s12 = (v: number): number => (v << 20) >> 20;
  return {
    T1: u16(b88, 0), T2: s16(b88, 2), T3: s16(b88, 4),
    P1: u16(b88, 6), P2: s16(b88, 8), P3: s16(b88, 10), P4: s16(b88, 12), P5: s16(b88, 14), P6: s16(b88, 16), P7: s16(b88, 18), P8: s16(b88, 20), P9: s16(b88, 22),
    H1: b88[25]!, H2: s16(bE1, 0), H3: bE1[2]!, H4: s12((bE1[3]! << 4) | (bE1[4]! & 0x0f)), H5: s12((bE1[5]! << 4) | (bE1[4]! >> 4)), H6: (bE1[6]! << 24) >> 24,
  };
}

/** Raw values of the data registers 0xF7..0xFE. */
function rawOf(d: number[]): { p: number; t: number; h: number } {
  return { p: (d[0]! << 12) | (d[1]! << 4) | (d[2]! >> 4), t: (d[3]! << 12) | (d[4]! << 4) | (d[5]! >> 4), h: (d[6]! << 8) | d[7]! };
}

describe('BME280 arithmetic', () => {
  it("gives the datasheet's worked example: adc_T 519888 is 25.08 C (t_fine 128422), adc_P 415148 is 100653.27 Pa", () => {
    const c = bme280Compensate(BME280_TRIM, 519888, 415148, 0);
    expect(c.tempC).toBeCloseTo(25.08, 2);
    expect(c.tFine).toBe(128422);
    expect(c.pa).toBeCloseTo(100653.27, 1);
  });

  it('finds the raw values whose compensation is the target, within a thousandth', () => {
    for (const want of [AIR, { tempC: -12.5, humidity: 93, hPa: 955 }, { tempC: 38.2, humidity: 4.5, hPa: 1079.9 }]) {
      const r = bme280Raw(BME280_TRIM, want);
      const got = bme280Compensate(BME280_TRIM, r.adcT, r.adcP, r.adcH);
      expect(Math.abs(got.tempC - want.tempC)).toBeLessThan(0.001);
      expect(Math.abs(got.humidity - want.humidity)).toBeLessThan(0.005);
      expect(Math.abs(got.pa / 100 - want.hPa)).toBeLessThan(0.002);
    }
  });

  it("times a conversion as the datasheet's maximum: 9.3 ms with every oversampling at x1", () => {
    expect(bme280MeasureMs(1, 1, 1)).toBeCloseTo(9.3, 5);
    expect(bme280MeasureMs(1, 0, 0)).toBeCloseTo(3.55, 5);
  });
});

describe('simulated BME280 on the bus', () => {
  const setup = () => {
    const r = rig();
    r.sim.attach(0, 0x76, simBme280({ target: () => AIR }));
    return r;
  };
  const readReg = (bus: I2cBus, reg: number, n: number): number[] => {
    expect(bus.write(0x76, [reg])).toBeUndefined();
    return bytes(bus.read(0x76, n));
  };

  it('has chip id 0x60 and its trimming at 0x88..0xA1 and 0xE1..0xE7', () => {
    const { bus } = setup();
    expect(readReg(bus, 0xd0, 1)).toEqual([0x60]);
    expect(decodeTrim(readReg(bus, 0x88, 26), readReg(bus, 0xe1, 7))).toEqual(BME280_TRIM);
  });

  it('gives the reset value 0x80000 before any conversion, the target after one forced conversion, then sleeps', () => {
    const { bus, time } = setup();
    expect(rawOf(readReg(bus, 0xf7, 8))).toEqual({ p: 0x80000, t: 0x80000, h: 0x8000 });
    expect(bus.write(0x76, [0xf2, 0x01, 0xf4, 0x25])).toBeUndefined();
    expect(readReg(bus, 0xf3, 1)[0]! & 0x08).toBe(0x08);
    time.jump(9);
    expect(rawOf(readReg(bus, 0xf7, 8)).t).toBe(0x80000);
    time.jump(1);
    expect(readReg(bus, 0xf3, 2)).toEqual([0x00, 0x24]);
    const raw = rawOf(readReg(bus, 0xf7, 8));
    const got = bme280Compensate(BME280_TRIM, raw.t, raw.p, raw.h);
    expect(got.tempC).toBeCloseTo(AIR.tempC, 2);
    expect(got.humidity).toBeCloseTo(AIR.humidity, 2);
    expect(got.pa / 100).toBeCloseTo(AIR.hPa, 2);
  });

  it('takes ctrl_hum only at the next ctrl_meas write, and skips what oversampling 0 skips', () => {
    const { bus, time } = setup();
    bus.write(0x76, [0xf4, 0x25]);
    bus.write(0x76, [0xf2, 0x01]);
    time.jump(10);
    expect(rawOf(readReg(bus, 0xf7, 8)).h).toBe(0x8000);
    bus.write(0x76, [0xf4, 0x21]);
    time.jump(10);
    const raw = rawOf(readReg(bus, 0xf7, 8));
    expect(raw.p).toBe(0x80000);
    expect(raw.h).not.toBe(0x8000);
  });

  it("'skipped' gives the skipped measurement's 0x80000; a BMP280 (0x58) has no humidity", () => {
    const { sim, bus, time } = setup();
    sim.fault(0, 0x76, 'skipped');
    bus.write(0x76, [0xf2, 0x01, 0xf4, 0x25]);
    time.jump(10);
    expect(rawOf(readReg(bus, 0xf7, 8))).toEqual({ p: 0x80000, t: 0x80000, h: 0x8000 });
    sim.attach(1, 0x77, simBme280({ target: () => AIR, chipId: 0x58 }));
    const b1 = sim.open(1, 2, 3, 100000);
    b1.write(0x77, [0xd0]);
    expect(bytes(b1.read(0x77, 1))).toEqual([0x58]);
    b1.write(0x77, [0xf2, 0x01, 0xf4, 0x25]);
    time.jump(10);
    b1.write(0x77, [0xf7]);
    const raw = rawOf(bytes(b1.read(0x77, 8)));
    expect(raw.h).toBe(0x8000);
    expect(bme280Compensate(BME280_TRIM, raw.t, raw.p, 0).tempC).toBeCloseTo(AIR.tempC, 2);
  });
});

describe('simulated SHT4x and SHT3x', () => {
  it("uses Sensirion's CRC-8 (0xBEEF gives 0x92)", () => {
    expect(crc8(0xbe, 0xef)).toBe(0x92);
  });

  it('SHT4x: 0xFD, no answer for 8.3 ms, then 6 bytes with a good CRC per word, read once; 0x89 its serial number', () => {
    const { sim, bus, time } = rig();
    sim.attach(0, 0x44, simSht4x({ target: () => LEAF }));
    expect(bus.write(0x44, [0xfd])).toBeUndefined();
    time.jump(8);
    expect(bus.read(0x44, 6)).toBe('no answer');
    expect(bus.write(0x44, [0xfd])).toBe('no answer');
    time.jump(1);
    const d = bytes(bus.read(0x44, 6));
    expect(d[2]).toBe(crc8(d[0]!, d[1]!));
    expect(d[5]).toBe(crc8(d[3]!, d[4]!));
    expect(-45 + (175 * ((d[0]! << 8) | d[1]!)) / 65535).toBeCloseTo(LEAF.tempC, 2);
    expect(-6 + (125 * ((d[3]! << 8) | d[4]!)) / 65535).toBeCloseTo(LEAF.humidity, 2);
    expect(bus.read(0x44, 6)).toBe('no answer');
    expect(bus.write(0x44, [0x42])).toBe('took 0 of 1 bytes');
    expect(bus.write(0x44, [0x89])).toBeUndefined();
    const serial = bytes(bus.read(0x44, 6));
    expect([serial[2], serial[5]]).toEqual([crc8(serial[0]!, serial[1]!), crc8(serial[3]!, serial[4]!)]);
  });

  it("'corruptCrc' spoils the second word's CRC, not the first's", () => {
    const { sim, bus, time } = rig();
    sim.attach(0, 0x44, simSht4x({ target: () => LEAF }));
    sim.fault(0, 0x44, 'corruptCrc');
    bus.write(0x44, [0xfd]);
    time.jump(9);
    const d = bytes(bus.read(0x44, 6));
    expect(d[2]).toBe(crc8(d[0]!, d[1]!));
    expect(d[5]).not.toBe(crc8(d[3]!, d[4]!));
  });

  it('SHT3x: 0x2400, no answer for 15.5 ms, then its words (RH = 100 * S / 65535); an unknown command is refused at its second byte', () => {
    const { sim, bus, time } = rig();
    sim.attach(0, 0x45, simSht3x({ target: () => LEAF }));
    expect(bus.write(0x45, [0x24, 0x00])).toBeUndefined();
    time.jump(15);
    expect(bus.read(0x45, 6)).toBe('no answer');
    time.jump(1);
    const d = bytes(bus.read(0x45, 6));
    expect(d[2]).toBe(crc8(d[0]!, d[1]!));
    expect(d[5]).toBe(crc8(d[3]!, d[4]!));
    expect(-45 + (175 * ((d[0]! << 8) | d[1]!)) / 65535).toBeCloseTo(LEAF.tempC, 2);
    expect((100 * ((d[3]! << 8) | d[4]!)) / 65535).toBeCloseTo(LEAF.humidity, 2);
    expect(bus.write(0x45, [0x24, 0x99])).toBe('took 1 of 2 bytes');
  });
});

describe('simulated BH1750', () => {
  it('power on, one-time high resolution: the previous result until 180 ms, then lux * 1.2, powered down', () => {
    const { sim, bus, time } = rig();
    let lux = 850.4;
    sim.attach(0, 0x23, simBh1750({ lux: () => lux }));
    expect(bus.write(0x23, [0x01])).toBeUndefined();
    expect(bus.write(0x23, [0x20])).toBeUndefined();
    time.jump(179);
    expect(bytes(bus.read(0x23, 2))).toEqual([0, 0]);
    time.jump(1);
    const d = bytes(bus.read(0x23, 2));
    expect(((d[0]! << 8) | d[1]!) / 1.2).toBeCloseTo(lux, 0);
    // Powered down: a reset of the data register is not taken.
    lux = 10;
    bus.write(0x23, [0x07]);
    expect(bytes(bus.read(0x23, 2))).toEqual(d);
  });
});

describe('the simulated bus', () => {
  it('rejects the pins Kaluma rejects (each pin has its own rule: SDA and SCL need not be neighbours), and a bus that is not 0 or 1', () => {
    const sim = createSimI2c({ clock: createFakeTime().clock });
    for (const [bus, sda, scl] of [[0, 4, 5], [0, 0, 1], [0, 20, 21], [0, 4, 9], [1, 2, 3], [1, 26, 27], [1, 18, 19]] as const) {
      expect(kalumaAcceptsPins(bus, sda, scl)).toBe(true);
      expect(() => sim.open(bus, sda, scl, 100000)).not.toThrow();
    }
    for (const [bus, sda, scl] of [[0, 5, 4], [0, 2, 3], [1, 4, 5], [0, 24, 25], [1, 22, 23], [1, 30, 31], [2, 4, 5]] as const) {
      expect(kalumaAcceptsPins(bus, sda, scl)).toBe(false);
      expect(() => sim.open(bus, sda, scl, 100000)).toThrow(/cannot use/);
    }
  });

  it('answers no answer at an empty address, refuses empty transfers, and closes a bus opened again', () => {
    const { sim, bus } = rig();
    expect(bus.read(0x50, 1)).toBe('no answer');
    expect(bus.write(0x50, [0])).toBe('no answer');
    expect(bus.write(0x50, [])).toBe('no bytes');
    expect(bus.read(0x50, 0)).toBe('no bytes');
    const again = sim.open(0, 4, 5, 400000);
    expect(bus.read(0x50, 1)).toBe('bus closed');
    expect(again.read(0x50, 1)).toBe('no answer');
    again.close();
    expect(again.read(0x50, 1)).toBe('bus closed');
  });

  it("'nack' is an unplugged chip; plugged in again it starts as after power-up", () => {
    const { sim, bus, time } = rig();
    sim.attach(0, 0x76, simBme280({ target: () => AIR }));
    bus.write(0x76, [0xf2, 0x01, 0xf4, 0x25]);
    time.jump(10);
    sim.fault(0, 0x76, 'nack');
    expect(bus.write(0x76, [0xf7])).toBe('no answer');
    expect(bus.read(0x76, 8)).toBe('no answer');
    sim.fault(0, 0x76, 'nack', false);
    bus.write(0x76, [0xf7]);
    expect(rawOf(bytes(bus.read(0x76, 8)))).toEqual({ p: 0x80000, t: 0x80000, h: 0x8000 });
  });

  it("'holdSda' sticks the whole bus (not the other one) until recover() clocks it free", () => {
    const { sim, bus } = rig();
    sim.attach(0, 0x76, simBme280({ target: () => AIR }));
    sim.attach(0, 0x23, simBh1750({ lux: () => 100 }));
    sim.attach(1, 0x44, simSht4x({ target: () => LEAF }));
    const other = sim.open(1, 2, 3, 100000);
    expect(bus.stuck()).toBeUndefined();
    expect(bus.recover()).toBe('lines high; 0 clocks on SCL; free; re-opened');
    sim.fault(0, 0x23, 'holdSda');
    expect(bus.stuck()).toBe('SDA held low');
    expect(bus.write(0x76, [0xd0])).toBe('no answer');
    expect(bus.read(0x76, 1)).toBe('no answer');
    expect(bus.stuck()).toBe('SDA held low');
    expect(other.stuck()).toBeUndefined();
    expect(other.write(0x44, [0xfd])).toBeUndefined();
    expect(bus.recover()).toBe('SDA held low; 3 clocks on SCL; free; re-opened');
    expect(bus.stuck()).toBeUndefined();
    expect(bus.write(0x76, [0xd0])).toBeUndefined();
    expect(bytes(bus.read(0x76, 1))).toEqual([0x60]);
  });

  it('lists its chips for a person watching: kind, faults set, what the last conversion measured', () => {
    const { sim, bus, time } = rig();
    sim.attach(0, 0x76, simBme280({ target: () => AIR }));
    sim.attach(0, 0x23, simBh1750({ lux: () => 321 }));
    sim.attach(1, 0x44, simSht4x({ target: () => LEAF }));
    sim.fault(0, 0x23, 'holdSda');
    sim.fault(0, 0x23, 'corruptCrc');
    expect(sim.chips()).toEqual([
      { bus: 0, addr: 0x23, kind: 'bh1750', faults: ['corruptCrc', 'holdSda'], last: undefined },
      { bus: 0, addr: 0x76, kind: 'bme280', faults: [], last: undefined },
      { bus: 1, addr: 0x44, kind: 'sht4x', faults: [], last: undefined },
    ]);
    bus.recover();
    bus.write(0x76, [0xf2, 0x01, 0xf4, 0x25]);
    bus.write(0x23, [0x20]);
    time.jump(200);
    bus.read(0x23, 2);
    bus.read(0x76, 1);
    expect(sim.chips().map((c) => [c.kind, c.faults, c.last])).toEqual([
      ['bh1750', ['corruptCrc'], { illuminance: 321 }],
      ['bme280', [], { temperature: AIR.tempC, humidity: AIR.humidity, pressure: AIR.hPa }],
      ['sht4x', [], undefined],
    ]);
  });

  it("npm start's board: a BME280, an SHT4x and a BH1750 on bus 0 near 21 C, 45 %RH, 1013 hPa, and daylight", () => {
    const { sim, bus, time } = rig();
    attachBoardChips(sim, { clock: time.clock, random: () => 0.5 });
    time.jump(150000);
    bus.write(0x76, [0xf2, 0x01, 0xf4, 0x25]);
    bus.write(0x44, [0xfd]);
    bus.write(0x23, [0x01]);
    bus.write(0x23, [0x20]);
    time.jump(200);
    bus.write(0x76, [0xf7]);
    const raw = rawOf(bytes(bus.read(0x76, 8)));
    const air = bme280Compensate(BME280_TRIM, raw.t, raw.p, raw.h);
    expect(Math.abs(air.tempC - 21)).toBeLessThan(2);
    expect(Math.abs(air.humidity - 45)).toBeLessThan(6);
    expect(Math.abs(air.pa / 100 - 1013)).toBeLessThan(4);
    const leaf = bytes(bus.read(0x44, 6));
    expect(Math.abs(-45 + (175 * ((leaf[0]! << 8) | leaf[1]!)) / 65535 - 20)).toBeLessThan(2);
    const light = bytes(bus.read(0x23, 2));
    // A quarter into the simulated day: the sun is at its height.
    expect(((light[0]! << 8) | light[1]!) / 1.2).toBeGreaterThan(15000);
    expect(sim.transfers()).toBe(8);
  });
});

describe('the drivers on the simulated chips', () => {
  const ready = (d: Driver, bus: I2cBus, addr: number, time: ReturnType<typeof createFakeTime>): Sampled => {
    const chip = readied(d, bus, addr, (ms) => time.jump(ms));
    if (typeof chip === 'string') throw new Error(chip);
    return chip;
  };

  it('a BME280 read by its driver gives back the target within 0.01, sample after sample, whatever its trimming', () => {
    // The second chip's trimming has every humidity term at work (dig_H3 is 0 on many chips) and negative 12-bit ones.
    for (const trim of [BME280_TRIM, { ...BME280_TRIM, H3: 40, H5: -37, H6: -9, T3: -1500, P9: 5100 }]) {
      const { sim, bus, time } = rig();
      let want = AIR;
      sim.attach(0, 0x76, simBme280({ target: () => want, trim }));
      const chip = ready(bme280, bus, 0x76, time);
      for (const w of [AIR, { tempC: -8.64, humidity: 88.1, hPa: 962.4 }, { tempC: 33.05, humidity: 12.75, hPa: 1041.7 }]) {
        want = w;
        const [t, h, p] = chip.sample() as number[];
        expect(Math.abs(t! - w.tempC)).toBeLessThan(0.01);
        expect(Math.abs(h! - w.humidity)).toBeLessThan(0.01);
        expect(Math.abs(p! - w.hPa)).toBeLessThan(0.01);
      }
    }
  });

  it("a BMP280's driver says so and gives no humidity; a skipped measurement and an unplugged chip are its failures", () => {
    const { sim, bus, time } = rig();
    sim.attach(0, 0x77, simBme280({ target: () => AIR, chipId: 0x58 }));
    sim.attach(0, 0x76, simBme280({ target: () => AIR }));
    const bmp = ready(bme280, bus, 0x77, time);
    expect(bmp.note).toMatch(/BMP280/);
    const [t, h, p] = bmp.sample() as number[];
    expect(Math.abs(t! - AIR.tempC)).toBeLessThan(0.01);
    expect(h).toBeNaN();
    expect(Math.abs(p! - AIR.hPa)).toBeLessThan(0.01);
    const bme = ready(bme280, bus, 0x76, time);
    sim.fault(0, 0x76, 'skipped');
    expect(bme.sample()).toMatch(/skipped/);
    sim.fault(0, 0x76, 'nack');
    expect(bme.sample()).toMatch(/no answer/);
  });

  it('an SHT4x and an SHT3x read by their drivers give back the target within 0.01; a corrupt CRC is caught', () => {
    const { sim, bus, time } = rig();
    sim.attach(0, 0x44, simSht4x({ target: () => LEAF }));
    sim.attach(0, 0x45, simSht3x({ target: () => LEAF }));
    for (const [d, addr] of [[sht4x, 0x44], [sht3x, 0x45]] as const) {
      const chip = ready(d, bus, addr, time);
      const [t, h] = chip.sample() as number[];
      expect(Math.abs(t! - LEAF.tempC)).toBeLessThan(0.01);
      expect(Math.abs(h! - LEAF.humidity)).toBeLessThan(0.01);
      sim.fault(0, addr, 'corruptCrc');
      expect(chip.sample()).toMatch(/CRC/);
    }
  });

  it('a BH1750 read by its driver gives the light to its resolution (1 / 1.2 lx)', () => {
    const { sim, bus, time } = rig();
    sim.attach(0, 0x23, simBh1750({ lux: () => 1234.5 }));
    const chip = ready(bh1750, bus, 0x23, time);
    for (let i = 0; i < 2; i++) {
      const [lux] = chip.sample() as number[];
      expect(Math.abs(lux! - 1234.5)).toBeLessThanOrEqual(0.5 / 1.2);
    }
  });
});
