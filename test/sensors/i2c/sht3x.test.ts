import { describe, expect, it } from 'vitest';
import type { Chip } from './fake-bus';
import { driver } from '../../../src/sensors/i2c/drivers/sht3x';
import { crc8 } from '../../../src/sensors/i2c/sht';
import { fakeBus, fakeSht, type FakeSht, sensirionCrc, chipOf, readyOn, sampleOf } from './fake-bus';

const ready = (dev: FakeSht, addr = 0x44): ReturnType<typeof readyOn> => readyOn(driver, dev, addr);

const sample = sampleOf;

describe('sht3x driver', () => {
  it("checks CRC-8 by the datasheet's example: 0xBEEF -> 0x92", () => {
    expect(crc8(new Uint8Array([0xbe, 0xef]), 0)).toBe(0x92);
    expect(crc8(new Uint8Array([0, 0, 0xbe, 0xef]), 2)).toBe(0x92);
    expect(sensirionCrc(0xbe, 0xef)).toBe(0x92);
  });

  it('agrees with the datasheet CRC over every first byte', () => {
    for (let hi = 0; hi < 256; hi++) {
      const lo = (hi * 37 + 11) & 0xff;
      expect(crc8(new Uint8Array([hi, lo]), 0)).toBe(sensirionCrc(hi, lo));
    }
  });

  it('starts a single shot, high repeatability, no clock stretching (0x24 0x00), waits 16 ms, reads 6 bytes', () => {
    const { chip, bus } = ready(fakeSht('3x'));
    expect(chip.start_()).toBe(16);
    chip.read_();
    expect(bus.log).toEqual(['w 44 24 00', 'r 44 6']);
  });

  it('T = -45 + 175 * S / 65535, RH = 100 * S / 65535, at the ends and between', () => {
    const dev = fakeSht('3x');
    const { chip } = ready(dev);
    dev.raw = { t: 0, rh: 0 };
    expect(sample(chip)).toEqual([-45, 0]);
    dev.raw = { t: 0xffff, rh: 0xffff };
    expect(sample(chip)).toEqual([130, 100]);
    // 0x6666 is 0.4 of 0xFFFF exactly; 0x9999 is 0.6.
    dev.raw = { t: 0x6666, rh: 0x9999 };
    const [t, rh] = sample(chip) as number[];
    expect(t).toBeCloseTo(25, 9);
    expect(rh).toBeCloseTo(60, 9);
  });

  it('answers at 0x45 too', () => {
    expect(sample(ready(fakeSht('3x', { t: 0x9999, rh: 0x6666 }), 0x45).chip)).toEqual([expect.closeTo(60, 9), expect.closeTo(40, 9)]);
  });

  it('says "CRC mismatch" when either word\'s CRC is wrong, and reads again when it is right', () => {
    const dev = fakeSht('3x');
    const { chip } = ready(dev);
    dev.corrupt = 't';
    expect(sample(chip)).toBe('CRC mismatch');
    dev.corrupt = 'rh';
    expect(sample(chip)).toBe('CRC mismatch');
    dev.corrupt = undefined;
    expect(typeof sample(chip)).toBe('object');
  });

  it('says when nothing answers, the answer is short, or no measurement is ready', () => {
    const dev = fakeSht('3x');
    const { chip } = ready(dev);
    dev.faults.nack = true;
    expect(chip.start_()).toBe('starting a measurement: no answer');
    dev.faults.nack = false;
    // Nothing started: the chip NACKs the read.
    expect(chip.read_()).toBe('reading the measurement: no answer');
    dev.faults.onRead = (_at, n) => n - 1;
    expect(sample(chip)).toBe('reading the measurement: 5 of 6 bytes');
    dev.faults.onRead = undefined;
    expect(sample(chip)).toEqual([expect.closeTo(25, 9), expect.closeTo(40, 9)]);
  });

  it('needs no bus at start (a chip plugged in later is read once it answers)', () => {
    const dev = fakeSht('3x');
    const bus = fakeBus({});
    const chip = chipOf(driver, bus, 0x44) as Chip;
    expect(typeof chip).toBe('object');
    expect(chip.start_()).toBe('starting a measurement: no answer');
    bus.chips[0x44] = dev;
    expect(sample(chip)).toEqual([expect.closeTo(25, 9), expect.closeTo(40, 9)]);
  });
});
