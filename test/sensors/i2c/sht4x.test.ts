import { describe, expect, it } from 'vitest';
import { driver } from '../../../src/sensors/i2c/drivers/sht4x';
import { crc8 } from '../../../src/sensors/i2c/sht';
import { fakeSht, type FakeSht, readyOn, sampleOf } from './fake-bus';

const ready = (dev: FakeSht, addr = 0x44): ReturnType<typeof readyOn> => readyOn(driver, dev, addr);

const sample = sampleOf;

describe('sht4x driver', () => {
  it("checks CRC-8 by the datasheet's example: 0xBEEF -> 0x92", () => {
    expect(crc8(new Uint8Array([0xbe, 0xef]), 0)).toBe(0x92);
  });

  it('measures with high precision (0xFD), waits 10 ms, reads 6 bytes', () => {
    const { chip, bus } = ready(fakeSht('4x'));
    expect(chip.start_()).toBe(10);
    chip.read_();
    expect(bus.log).toEqual(['w 44 fd', 'r 44 6']);
  });

  it('T = -45 + 175 * S / 65535; RH = -6 + 125 * S / 65535, clamped to 0..100 at the ends', () => {
    const dev = fakeSht('4x');
    const { chip } = ready(dev);
    dev.raw = { t: 0, rh: 0 };
    // -6 %RH at S = 0, clamped.
    expect(sample(chip)).toEqual([-45, 0]);
    dev.raw = { t: 0xffff, rh: 0xffff };
    // 119 %RH at S = 0xFFFF, clamped.
    expect(sample(chip)).toEqual([130, 100]);
    // Where the line crosses 0 and 100: S = 6 / 125 and 106 / 125 of 0xFFFF.
    dev.raw = { t: 0x6666, rh: 3146 };
    expect((sample(chip) as number[])[1]).toBeCloseTo(-6 + (125 * 3146) / 65535, 9);
    dev.raw = { t: 0x6666, rh: 3145 };
    expect((sample(chip) as number[])[1]).toBe(0);
    dev.raw = { t: 0x6666, rh: 55574 };
    expect((sample(chip) as number[])[1]).toBe(100);
    dev.raw = { t: 0x6666, rh: 55573 };
    expect((sample(chip) as number[])[1]).toBeLessThan(100);
    // 0x6666 is 0.4 of 0xFFFF exactly, 0x9999 is 0.6: 25 C, 44 %RH; 60 C, 69 %RH.
    dev.raw = { t: 0x6666, rh: 0x6666 };
    expect(sample(chip)).toEqual([expect.closeTo(25, 9), expect.closeTo(44, 9)]);
    dev.raw = { t: 0x9999, rh: 0x9999 };
    expect(sample(chip)).toEqual([expect.closeTo(60, 9), expect.closeTo(69, 9)]);
  });

  it('answers at 0x45 and 0x46 too', () => {
    for (const addr of [0x45, 0x46]) expect(sample(ready(fakeSht('4x'), addr).chip)).toEqual([expect.closeTo(25, 9), expect.closeTo(44, 9)]);
  });

  it('says "CRC mismatch" when either word\'s CRC is wrong', () => {
    const dev = fakeSht('4x');
    const { chip } = ready(dev);
    dev.corrupt = 't';
    expect(sample(chip)).toBe('CRC mismatch');
    dev.corrupt = 'rh';
    expect(sample(chip)).toBe('CRC mismatch');
    dev.corrupt = undefined;
    expect(typeof sample(chip)).toBe('object');
  });

  it('says when nothing answers, the answer is short, or no measurement is ready', () => {
    const dev = fakeSht('4x');
    const { chip } = ready(dev);
    dev.faults.nack = true;
    expect(chip.start_()).toBe('starting a measurement: no answer');
    dev.faults.nack = false;
    expect(chip.read_()).toBe('reading the measurement: no answer');
    dev.faults.onRead = (_at, n) => n - 4;
    expect(sample(chip)).toBe('reading the measurement: 2 of 6 bytes');
  });

  it("is refused by an SHT3x, whose commands are two bytes (the kind's command is the SHT4x's)", () => {
    const { chip } = ready(fakeSht('3x'));
    expect(chip.start_()).toBe('starting a measurement: no answer');
  });
});
