// The bench's stand-in for Kaluma's 'i2c' module (scripts/measure/engine/
// i2c-standin.ts), built as board.ts builds it and run in a context of its
// own, under the board's I2C port and the drivers: its BME280 and SHT4x read
// as the values it states, the lines of an open bus read high, and it refuses
// what Kaluma refuses.
import { build } from 'esbuild';
import vm from 'node:vm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { I2cBus } from '../../src/ports/ports';
import type { Driver } from '../../src/sensors/i2c/driver';
import { driver as bme280 } from '../../src/sensors/i2c/drivers/bme280';
import { driver as sht4x } from '../../src/sensors/i2c/drivers/sht4x';
import { readied } from '../fakes/i2c-sample';
import { stubKalumaRequire } from './kaluma-env';

let code = '';
beforeAll(async () => {
  const r = await build({ entryPoints: ['scripts/measure/engine/i2c-standin.ts'], bundle: true, format: 'iife', target: 'es2019', minify: true, write: false });
  code = r.outputFiles[0]!.text;
});
afterEach(() => vi.unstubAllGlobals());

/** The stand-in in front of an engine whose require() knows only 'wdt' and whose pins all read 0, as the PC's does. */
async function load() {
  const ctx: Record<string, unknown> = { require: (n: string) => (n === 'wdt' ? { WDT: 1 } : undefined), digitalRead: () => 0, Uint8Array, Error };
  ctx['globalThis'] = ctx;
  vm.createContext(ctx);
  vm.runInContext(code, ctx);
  const req = ctx['require'] as (n: string) => { I2C: new (bus: number, o: object) => unknown };
  vi.resetModules();
  stubKalumaRequire({ i2c: req('i2c') });
  vi.stubGlobal('digitalRead', ctx['digitalRead']);
  vi.stubGlobal('analogWrite', () => undefined);
  vi.stubGlobal('noTone', () => undefined);
  const port = await import('../../src/ports/kaluma/i2c');
  return { ctx, req, port };
}

/** One sample of a driver readied on the chip (the stand-in's values are ready at once). */
const sample = (d: Driver, bus: I2cBus, addr: number): number[] | string => {
  const chip = readied(d, bus, addr, () => undefined);
  return typeof chip === 'string' ? chip : chip.sample();
};

describe('the I2C stand-in on the engine', () => {
  it('passes every other module to the require() it found', async () => {
    const { req } = await load();
    expect(req('wdt')).toEqual({ WDT: 1 });
  });

  it('answers as the BME280 and the SHT4x it states, through the board port and the drivers', async () => {
    const { port } = await load();
    const bus = port.kalumaI2c.use(port.kalumaI2c.open(0, 4, 5, 100000));
    const [t, h, p] = sample(bme280, bus, 0x76) as number[];
    expect(Math.abs(t! - 21.5)).toBeLessThan(0.01);
    expect(Math.abs(h! - 45)).toBeLessThan(0.01);
    expect(Math.abs(p! - 1013.25)).toBeLessThan(0.01);
    const [lt, lh] = sample(sht4x, bus, 0x44) as number[];
    expect(Math.abs(lt! - 20.5)).toBeLessThan(0.01);
    expect(Math.abs(lh! - 50)).toBeLessThan(0.01);
    expect(bus.read(0x23, 2)).toBe('no answer');
  });

  it("reads the open bus's lines high (the engine's pins read 0), and refuses a second I2C on an open bus", async () => {
    const { ctx, req, port } = await load();
    const read = ctx['digitalRead'] as (pin: number) => number;
    expect(read(4)).toBe(0);
    const bus = port.kalumaI2c.use(port.kalumaI2c.open(0, 4, 5, 100000));
    expect(bus.stuck()).toBeUndefined();
    expect([read(4), read(5), read(6)]).toEqual([1, 1, 0]);
    const I2C = req('i2c').I2C;
    expect(() => new I2C(0, { sda: 4, scl: 5 })).toThrow(/Device Init/);
    bus.close();
    expect(read(4)).toBe(0);
  });
});
