// The board's I2C port (src/ports/kaluma/i2c.ts) on a model of Kaluma 1.2.1's
// 'i2c' module and pin globals (test/fakes/kaluma/i2c.ts), chips on the
// wires: what Kaluma throws or miscounts comes back as the port's plain
// answers, a bus someone left open is taken over, and a chip holding SDA is
// clocked free through the PWM block (pinMode and digitalWrite cannot reach
// a pin the I2C block has).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { simBme280, simSht4x } from '../../host/ports/i2c-chips';
import type * as Port from '../../src/ports/kaluma/i2c';
import type { I2cBus } from '../../src/ports/ports';
import { driver as bme280 } from '../../src/sensors/i2c/drivers/bme280';
import { readied } from '../fakes/i2c-sample';
import { createKalumaI2c } from '../fakes/kaluma/i2c';
import type { KalumaI2c } from '../fakes/kaluma/i2c';
import { createFakeTime } from '../fakes/time';
import { stubKalumaRequire } from './kaluma-env';

const AIR = { tempC: 22.41, humidity: 51.2, hPa: 998.6 };

async function board(): Promise<{ k: KalumaI2c; port: typeof Port; required: string[]; time: ReturnType<typeof createFakeTime> }> {
  vi.resetModules();
  const time = createFakeTime();
  const k = createKalumaI2c({ clock: time.clock });
  k.sim.attach(0, 0x76, simBme280({ target: () => AIR }));
  k.sim.attach(0, 0x44, simSht4x({ target: () => ({ tempC: 20, humidity: 50 }) }));
  const required = stubKalumaRequire({ i2c: k.module });
  for (const [name, f] of Object.entries(k.globals)) vi.stubGlobal(name, f);
  const port = await import('../../src/ports/kaluma/i2c');
  return { k, port, required, time };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

const read = (bus: I2cBus, addr: number, reg: number, n: number): number[] => {
  expect(bus.write(addr, [reg])).toBeUndefined();
  const r = bus.read(addr, n);
  if (typeof r === 'string') throw new Error(r);
  return [...r];
};

describe('the Kaluma I2C port', () => {
  it("requires Kaluma's i2c module at the first open, not when loaded, and opens the bus on the pins at the frequency given", async () => {
    const { k, port, required } = await board();
    expect(required).toEqual([]);
    const bus = port.kalumaI2c.use(port.kalumaI2c.open(0, 4, 5, 400000));
    expect(required).toEqual(['i2c']);
    expect(k.calls).toEqual(['new 0 4 5 400000']);
    expect(read(bus, 0x76, 0xd0, 1)).toEqual([0x60]);
  });

  it('opens a bus someone left open (Kaluma refuses a second I2C on it), retires the handle of an earlier open, and throws on pins Kaluma refuses', async () => {
    const { k, port } = await board();
    const I2C = k.module.I2C as new (bus: number, o?: object) => { close(): void };
    new I2C(0);
    expect(k.isOpen(0)).toBe(true);
    const bus = port.kalumaI2c.use(port.kalumaI2c.open(0, 4, 5, 100000));
    expect(read(bus, 0x76, 0xd0, 1)).toEqual([0x60]);
    // Opened again (a configuration rebuilt): the earlier handle no longer touches the bus, its close() included.
    const again = port.kalumaI2c.use(port.kalumaI2c.open(0, 4, 5, 100000));
    expect(bus.read(0x76, 1)).toBe('bus closed');
    expect(bus.recover()).toBe('bus closed');
    bus.close();
    expect(k.isOpen(0)).toBe(true);
    expect(read(again, 0x76, 0xd0, 1)).toEqual([0x60]);
    expect(() => port.kalumaI2c.use(port.kalumaI2c.open(1, 4, 5, 100000))).toThrow(/Device Init/);
  });

  it("answers 'no answer' for a NACK, counts a refused data byte, refuses empty transfers before Kaluma sees them", async () => {
    const { k, port } = await board();
    const bus = port.kalumaI2c.use(port.kalumaI2c.open(0, 4, 5, 100000));
    expect(bus.write(0x50, [1])).toBe('no answer');
    expect(bus.read(0x50, 2)).toBe('no answer');
    expect(bus.write(0x44, [0x42])).toBe('took 0 of 1 bytes');
    const before = k.calls.length;
    expect(bus.write(0x76, [])).toBe('no bytes');
    expect(bus.read(0x76, 0)).toBe('no bytes');
    expect(k.calls.length).toBe(before);
    k.sim.fault(0, 0x76, 'nack');
    expect(bus.write(0x76, [0xd0])).toBe('no answer');
  });

  it("passes a timeout read() keeps whole (Kaluma cuts it to 8 bits), and each write's bytes exactly", async () => {
    const { k, port } = await board();
    const bus = port.kalumaI2c.use(port.kalumaI2c.open(0, 4, 5, 100000));
    read(bus, 0x76, 0x88, 26);
    const timeouts = k.calls.filter((c) => /^[wr] /.test(c)).map((c) => Number(/t(\d+)$/.exec(c)![1]));
    expect(new Set(timeouts)).toEqual(new Set([50]));
    expect(k.calls.filter((c) => c.startsWith('w '))).toEqual(['w 0 76 1 t50']);
  });

  it('a BME280 driver through the port gives back the target within 0.01', async () => {
    const { port, time } = await board();
    const chip = readied(bme280, port.kalumaI2c.use(port.kalumaI2c.open(0, 4, 5, 100000)), 0x76, (ms) => time.jump(ms));
    if (typeof chip === 'string') throw new Error(chip);
    const [t, h, p] = chip.sample() as number[];
    expect(Math.abs(t! - AIR.tempC)).toBeLessThan(0.01);
    expect(Math.abs(h! - AIR.humidity)).toBeLessThan(0.01);
    expect(Math.abs(p! - AIR.hPa)).toBeLessThan(0.01);
  });

  it('says a held SDA, and recover() closes the bus, clocks SCL through the PWM block until SDA is let go, and opens it again', async () => {
    const { k, port } = await board();
    const bus = port.kalumaI2c.use(port.kalumaI2c.open(0, 4, 5, 100000));
    expect(bus.stuck()).toBeUndefined();
    k.sim.fault(0, 0x44, 'holdSda');
    expect(bus.stuck()).toBe('SDA held low');
    expect(bus.read(0x76, 1)).toBe('no answer');
    k.calls.length = 0;
    expect(bus.recover()).toBe('SDA held low; 3 clocks on SCL; free; re-opened');
    expect(k.calls).toEqual(['close 0', 'scl 0 0', 'scl 0 1', 'scl 0 0', 'scl 0 1', 'scl 0 0', 'scl 0 1', 'new 0 4 5 100000']);
    expect(k.violations).toEqual([]);
    expect(bus.stuck()).toBeUndefined();
    expect(read(bus, 0x76, 0xd0, 1)).toEqual([0x60]);
  });

  it('gives up after 9 clocks, and says so; a free bus is re-opened without a clock', async () => {
    const { k, port } = await board();
    const bus = port.kalumaI2c.use(port.kalumaI2c.open(0, 4, 5, 100000));
    expect(bus.recover()).toBe('lines high; 0 clocks on SCL; free; re-opened');
    k.clocksToFree = 20;
    k.sim.fault(0, 0x44, 'holdSda');
    expect(bus.recover()).toBe('SDA held low; 9 clocks on SCL; SDA held low still; re-opened');
    expect(k.violations).toEqual([]);
    expect(k.isOpen(0)).toBe(true);
  });

  it("keeps no code in a bus's handle: the port let go and loaded again drives the bus through it, and still retires an earlier handle", async () => {
    const { k, port } = await board();
    const first = port.kalumaI2c.open(0, 4, 5, 100000);
    const h = port.kalumaI2c.open(0, 4, 5, 100000);
    const fns: string[] = [];
    const walk = (o: object, at: string): void => {
      for (const [key, v] of Object.entries(o)) {
        if (typeof v === 'function') fns.push(at + key);
        // Kaluma's own I2C object: its methods are the firmware's, on its prototype.
        else if (v && typeof v === 'object' && !(v instanceof (k.module.I2C as new () => object))) walk(v as object, at + key + '.');
      }
    };
    walk(h, '');
    expect(fns).toEqual([]);
    vi.resetModules();
    const again = await import('../../src/ports/kaluma/i2c');
    expect(again.kalumaI2c).not.toBe(port.kalumaI2c);
    expect(read(again.kalumaI2c.use(h), 0x76, 0xd0, 1)).toEqual([0x60]);
    expect(again.kalumaI2c.use(first).read(0x76, 1)).toBe('bus closed');
    again.kalumaI2c.use(first).close();
    expect(k.isOpen(0)).toBe(true);
    again.kalumaI2c.use(h).close();
    expect(k.isOpen(0)).toBe(false);
  });

  it('close() closes the bus once; the handle then answers bus closed', async () => {
    const { k, port } = await board();
    const bus = port.kalumaI2c.use(port.kalumaI2c.open(1, 2, 3, 100000));
    bus.close();
    bus.close();
    expect(k.isOpen(1)).toBe(false);
    expect(bus.read(0x76, 1)).toBe('bus closed');
    expect(bus.write(0x76, [1])).toBe('bus closed');
    expect(k.calls.filter((c) => c.startsWith('close'))).toEqual(['close 1']);
  });
});
