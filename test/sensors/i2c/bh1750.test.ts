import { describe, expect, it } from 'vitest';
import type { Chip } from './fake-bus';
import { driver } from '../../../src/sensors/i2c/drivers/bh1750';
import { fakeBh1750, type FakeBh1750, fakeBus, chipOf, readyOn, sampleOf } from './fake-bus';

const ready = (dev: FakeBh1750, addr = 0x23): ReturnType<typeof readyOn> => readyOn(driver, dev, addr);

const sample = sampleOf;

describe('bh1750 driver', () => {
  it('powers on (0x01), measures once in high resolution (0x20), waits 180 ms, reads 2 bytes', () => {
    const dev = fakeBh1750();
    const { chip, bus } = ready(dev);
    expect(chip.start_()).toBe(180);
    expect(dev.measurements).toBe(1);
    chip.read_();
    expect(bus.log).toEqual(['w 23 01', 'w 23 20', 'r 23 2']);
  });

  it("gives the datasheet's example: bytes 0x83 0x90 -> 28067 lx (count / 1.2)", () => {
    const [lx] = sample(ready(fakeBh1750(0x8390)).chip) as number[];
    expect(lx).toBeCloseTo(28067, 0);
    expect(lx).toBeCloseTo(33680 / 1.2, 9);
  });

  it('measures again at each start_ (the chip powers down after a one-time measurement)', () => {
    const dev = fakeBh1750(0x0001);
    const { chip } = ready(dev);
    expect(sample(chip)).toEqual([expect.closeTo(1 / 1.2, 9)]);
    dev.count = 0xfffe;
    expect(sample(chip)).toEqual([expect.closeTo(65534 / 1.2, 9)]);
    dev.count = 0;
    expect(sample(chip)).toEqual([0]);
    expect(dev.measurements).toBe(3);
  });

  it('answers at 0x5C too', () => {
    expect(sample(ready(fakeBh1750(120), 0x5c).chip)).toEqual([expect.closeTo(100, 9)]);
  });

  it('says "out of range (saturated)" for an all-ones count', () => {
    const dev = fakeBh1750(0xffff);
    const { chip } = ready(dev);
    expect(sample(chip)).toBe('out of range (saturated)');
    dev.count = 0x8390;
    expect(typeof sample(chip)).toBe('object');
  });

  it('says which step failed: powering on, starting, reading, a short answer', () => {
    const dev = fakeBh1750();
    const { chip } = ready(dev);
    dev.faults.nack = true;
    expect(chip.start_()).toBe('powering on: no answer');
    expect(chip.read_()).toBe('reading the measurement: no answer');
    dev.faults.nack = false;
    dev.faults.onWrite = (b) => (b[0] === 0x20 ? 'no answer' : undefined);
    expect(chip.start_()).toBe('starting a measurement: no answer');
    dev.faults.onWrite = undefined;
    dev.faults.onRead = () => 1;
    expect(sample(chip)).toBe('reading the measurement: 1 of 2 bytes');
    dev.faults.onRead = undefined;
    expect(sample(chip)).toEqual([expect.closeTo(28066.67, 2)]);
  });

  it('needs no bus at start (a chip plugged in later is read once it answers)', () => {
    const bus = fakeBus({});
    const chip = chipOf(driver, bus, 0x23) as Chip;
    expect(chip.start_()).toBe('powering on: no answer');
    bus.chips[0x23] = fakeBh1750();
    expect(sample(chip)).toEqual([expect.closeTo(28066.67, 2)]);
  });
});
