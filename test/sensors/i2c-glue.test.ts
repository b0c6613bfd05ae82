// The I2C sensors' steps (src/sensors/i2c/sensors.ts, through their
// objects made by src/sensors/i2c/start.ts) with a scripted bus and driver:
// each step loads its code and lets it go; conversions end on a timer; each
// quantity is calibrated and filtered on its own; failures are counted and
// said once per change; a part plugged in later is read without a restart; a
// held bus is freed and said so; a step waits while a request is in flight.
import { describe, expect, it } from 'vitest';
import type { SampleEvent } from '../../src/agent/sampler';
import { createChain } from '../../src/filters/index';
import type { I2cBus, I2cPorts, System } from '../../src/ports/ports';
import { startI2c } from '../../src/sensors/i2c/start';
import type { Driver } from '../../src/sensors/i2c/driver';
import { failI2c } from '../../src/sensors/i2c/fail';
import { goI2c, readI2c, scanBus } from '../../src/sensors/i2c/sensors';
import { S } from '../../src/sensors/i2c/state';
import type { I2cEnv, I2cSensor } from '../../src/sensors/i2c/state';
import type { Sensor } from '../../src/sensors/sensor';
import { createFakeTime } from '../fakes/time';
import { configOf } from '../fakes/validate';

interface Script {
  /** What the next init, start or read gives: a failure string, or undefined for success. */
  init?: string;
  start?: string;
  read?: string;
  values: number[];
  note?: string;
  held?: string;
  /** The step's cold code cannot be loaded, and why. */
  noCode?: string;
}

function rig(sensors: Record<string, unknown>[], script: Script) {
  const time = createFakeTime(1000);
  const lines: string[] = [];
  const log = { info: (l: string) => lines.push('I ' + l), error: (l: string) => lines.push('E ' + l) };
  const opened: number[][] = [];
  let recovered = 0;
  const bus: I2cBus = {
    write: (a) => (a === 0x44 || a === 0x76 ? undefined : 'no answer'),
    read: (a) => (a === 0x44 || a === 0x76 ? new Uint8Array(1) : 'no answer'),
    stuck: () => script.held,
    recover: () => {
      recovered++;
      script.held = undefined;
      return 'clocked SCL 3 times; SDA free; bus open again';
    },
    close: () => undefined,
  };
  const ports: I2cPorts = { open: (...a) => (opened.push(a), bus), use: (h) => h as I2cBus };
  const starts: number[] = [];
  const driver: Driver = {
    init_: (_b, _a, note) => {
      if (script.init) return script.init;
      if (script.note) note(script.note);
      return [7];
    },
    start_: (_b, _a, st) => (expect(st).toEqual([7]), starts.push(time.now()), script.start ?? 10),
    read_: () => script.read ?? script.values.slice(),
  };
  const loads: Record<string, number> = {};
  const cfg = configOf({ sensors, devices: [{ name: 'd', deviceId: 1, devicePin: 1, format: 'JSON', sensors: sensors.map((s) => s.name) }] });
  const events: SampleEvent[] = [];
  let busy = false;
  let collections = 0;
  const env: I2cEnv = {
    p: { i2c: ports, timers: time.timers, log, clock: time.clock, system: { collect: () => void collections++ } as unknown as System },
    load: <T>(name: string) => {
      loads[name] = (loads[name] || 0) + 1;
      if (script.noCode) return { ok: false as const, error: script.noCode };
      if (name === 'i2c-go') return { ok: true as const, value: goI2c as T };
      if (name === 'i2c-read') return { ok: true as const, value: readI2c as T };
      if (name === 'i2c-fail') return { ok: true as const, value: failI2c as T };
      if (name === 'bme280-init' || name === 'sht4x-init') return { ok: true as const, value: driver.init_ as T };
      return name === 'bme280' || name === 'sht4x' ? { ok: true as const, value: driver as T } : { ok: false as const, error: 'cold code ' + name + ': not here' };
    },
    emit: (e) => events.push(e),
    chain: createChain,
    busy: () => (busy ? { inFlightSinceMs: 1 } : {}),
    buses: [],
  };
  const sampled: { sensor: Sensor; intervalMs: number }[] = [];
  const list: Sensor[] = startI2c(cfg.sensors, env, sampled);
  expect(sampled.map((x) => [x.sensor, x.intervalMs])).toEqual(list.map((x, i) => [x, cfg.sensors[i]!.intervalMs]));
  // What the sampler keeps per I2C sensor: its object and period, no filter field (each field is heap for good).
  expect(sampled.map((x) => Object.keys(x))).toEqual(list.map(() => ['sensor', 'intervalMs']));
  const state = (list as I2cSensor[]).map((s) => s.st_);
  /** A sensor's counts as status() shows them. */
  const counts = (i: number) => {
    const st = state[i]!;
    return { reads: st[S.Reads], failures: st[S.Failures], error: st[S.Error] };
  };
  /** One period: every sensor sampled, then the conversion time passed. */
  const period = (): void => {
    for (const s of list) expect(s.sample()).toBeNull();
    time.advanceSync(20);
  };
  return { time, lines, opened, events, list, state, counts, collections: () => collections, period, starts, loads, env, recovered: () => recovered, setBusy: (b: boolean) => void (busy = b) };
}

const air = { name: 'air', kind: 'bme280' };

describe('I2C sensors', () => {
  it('read each quantity after the conversion time, on a timer, with its unit and name, loading their code for each step', () => {
    const r = rig([air], { values: [21.5, 45, 1013.25] });
    r.list[0]?.sample();
    // Nothing before the part's conversion time: the loop was not blocked.
    expect(r.events).toEqual([]);
    // The step's code collected as soon as it ran, not left for a request to meet.
    expect(r.collections()).toBe(1);
    expect(r.loads).toEqual({ 'i2c-go': 1, 'bme280-init': 1, bme280: 1 });
    r.time.advanceSync(9);
    expect(r.events).toEqual([]);
    r.time.advanceSync(1);
    expect(r.events.map((e) => [e.sensor, e.base, e.value, e.unit])).toEqual([
      ['air.temperature', 'air', 21.5, 'C'],
      ['air.humidity', 'air', 45, '%RH'],
      ['air.pressure', 'air', 1013.25, 'hPa'],
    ]);
    expect(r.loads).toEqual({ 'i2c-go': 1, 'bme280-init': 1, 'i2c-read': 1, bme280: 2 });
    expect(r.collections()).toBe(2);
    expect(r.opened).toEqual([[0, 4, 5, 100000]]);
    expect(r.counts(0)).toEqual({ reads: 1, failures: 0, error: undefined });
    // Between samples the sensor holds data, its two methods, and the timer's callback it made once: no step code.
    const fns = Object.entries(r.list[0] as object).filter(([, v]) => typeof v === 'function').map(([k]) => k);
    expect(fns.sort()).toEqual(['close', 'sample']);
    // Its state's one function is the step every sensor shares (its sample()): no callback kept per sensor.
    const stateFns = r.state[0]!.filter((v) => typeof v === 'function');
    expect(stateFns).toHaveLength(1);
    expect(Object.values(r.list[0] as object)).toContain(stateFns[0]);
    // Readied once: later samples load the driver's steps alone, not its readying.
    r.period();
    expect(r.loads).toEqual({ 'i2c-go': 2, 'bme280-init': 1, 'i2c-read': 2, bme280: 4 });
  });

  it('calibrate and filter each quantity on its own', () => {
    const script: Script = { values: [20, 40, 1000] };
    const r = rig([{ ...air, humidityOffset: -2, humidityScale: 1.1, filters: 'average:2', pressureFilters: 'clamp:900:1100' }], script);
    r.period();
    const first = r.events.length;
    script.values = [30, 50, 1200];
    r.period();
    // Temperature and humidity averaged each with its own past; pressure only clamped (its own filters: 1200 dropped).
    const last = r.events.slice(first).map((e) => [e.sensor, e.value]);
    expect(last).toHaveLength(2);
    expect(last[0]).toEqual(['air.temperature', 25]);
    expect(last[1]?.[0]).toBe('air.humidity');
    expect(last[1]?.[1]).toBeCloseTo((40 * 1.1 - 2 + (50 * 1.1 - 2)) / 2, 9);
    expect(r.events.filter((e) => e.sensor === 'air.pressure').map((e) => e.value)).toEqual([1000]);
  });

  it('skip a quantity the part does not have (a BMP280: NaN humidity), said once when readied', () => {
    const r = rig([air], { values: [20, NaN, 1000], note: 'BMP280 (no humidity)' });
    r.period();
    r.period();
    expect(r.events.map((e) => e.sensor)).toEqual(['air.temperature', 'air.pressure', 'air.temperature', 'air.pressure']);
    expect(r.lines).toEqual(['I sensor air: BMP280 (no humidity)']);
  });

  it('count a part that does not answer, log it once, try again each period, and read it once plugged in', () => {
    const script: Script = { init: 'reading chip id: no answer', values: [20, 50, 1000] };
    const r = rig([air], script);
    for (let i = 0; i < 5; i++) r.period();
    expect(r.events).toEqual([]);
    expect(r.counts(0)).toEqual({ reads: 0, failures: 5, error: 'reading chip id: no answer' });
    expect(r.lines).toEqual(['E sensor air (bme280 at 0x76, bus 0): reading chip id: no answer; tried again every period']);
    script.init = undefined;
    r.period();
    expect(r.events).toHaveLength(3);
    expect(r.lines[1]).toBe('I sensor air: reading again (5 failures so far)');
    expect(r.counts(0)).toEqual({ reads: 1, failures: 5, error: undefined });
  });

  it('drop its last readings when it fails (NaN once), so they are not sent again as new', () => {
    const script: Script = { values: [20, 50, 1000] };
    const r = rig([air], script);
    r.period();
    script.read = 'reading the measurement: no answer';
    r.period();
    r.period();
    expect(r.events.slice(3).map((e) => [e.sensor, e.value])).toEqual([['air.temperature', NaN], ['air.humidity', NaN], ['air.pressure', NaN]]);
  });

  it('log a failure again only when it changes, and ready the part again after one', () => {
    const script: Script = { read: 'CRC mismatch', values: [20, 50, 1000] };
    const r = rig([air], script);
    r.period();
    r.period();
    script.read = 'measurement skipped (raw 0x80000)';
    r.period();
    r.period();
    expect(r.lines.filter((l) => l.startsWith('E'))).toEqual([
      'E sensor air (bme280 at 0x76, bus 0): CRC mismatch; tried again every period',
      'E sensor air (bme280 at 0x76, bus 0): measurement skipped (raw 0x80000); tried again every period',
    ]);
    expect(r.counts(0).failures).toBe(4);
  });

  it('free a bus held low and say so once', () => {
    const script: Script = { init: 'reading chip id: no answer', held: 'SDA held low', values: [1, 2, 3] };
    const r = rig([air], script);
    r.period();
    expect(r.recovered()).toBe(1);
    expect(r.lines).toContain('E i2c bus 0: SDA held low; clocked SCL 3 times; SDA free; bus open again');
    script.init = undefined;
    r.period();
    expect(r.events).toHaveLength(3);
  });

  it('do not start a conversion while one runs', () => {
    const r = rig([air], { values: [1, 2, 3] });
    r.list[0]?.sample();
    r.list[0]?.sample();
    expect(r.starts).toHaveLength(1);
  });

  it('wait while a request is in flight: no code loaded until it ends', () => {
    const r = rig([air], { values: [1, 2, 3] });
    r.setBusy(true);
    r.list[0]?.sample();
    r.time.advanceSync(500);
    expect(r.loads).toEqual({});
    r.setBusy(false);
    r.time.advanceSync(100);
    expect(r.loads).toEqual({ 'i2c-go': 1, 'bme280-init': 1, bme280: 1 });
    r.time.advanceSync(10);
    expect(r.events).toHaveLength(3);
  });

  it('count a step whose code cannot be loaded, said once per reason', () => {
    const r = rig([air], { values: [1, 2, 3], noCode: 'cold code i2c: 9000 B of heap needed, 4000 B free' });
    r.period();
    r.period();
    expect(r.counts(0)).toMatchObject({ failures: 2, error: 'cold code i2c: 9000 B of heap needed, 4000 B free' });
    expect(r.lines).toEqual(['E sensor air: cold code i2c: 9000 B of heap needed, 4000 B free']);
  });

  it('open a shared bus once, and take no step once closed', () => {
    const r = rig([air, { name: 'leaf', kind: 'sht4x' }], { values: [1, 2, 3] });
    r.period();
    expect(r.opened).toHaveLength(1);
    r.list[0]?.sample();
    const n = { ...r.loads };
    const events = r.events.length;
    r.list[0]?.close();
    r.list[0]?.close();
    // The conversion under way ends with no step: nothing loaded, nothing read, nothing waiting after.
    r.list[0]?.sample();
    r.time.advanceSync(50);
    expect(r.loads).toEqual(n);
    expect(r.events).toHaveLength(events);
    expect(r.time.pending()).toBe(0);
  });

  it('name the driver a step could not load', () => {
    const r = rig([{ name: 'lux', kind: 'bh1750' }], { values: [1] });
    r.period();
    expect(r.lines).toEqual(['E sensor lux (bh1750 at 0x23, bus 0): the bh1750 driver: cold code bh1750-init: not here; tried again every period']);
  });
});

describe('scanBus', () => {
  it('tries 0x08 to 0x77 only', () => {
    const asked: number[] = [];
    scanBus({ write: () => 'no answer', read: (a) => (asked.push(a), 'no answer') });
    expect(asked[0]).toBe(0x08);
    expect(asked[asked.length - 1]).toBe(0x77);
    expect(asked).toHaveLength(0x70);
  });

  it('asks an SHT address that refuses a read with a one-byte write of 0x89, and no other address', () => {
    const wrote: [number, number[]][] = [];
    const found = scanBus({ write: (a, b) => (wrote.push([a, b]), a === 0x45 ? 'took 0 of 1 bytes' : 'no answer'), read: () => 'no answer' });
    expect(wrote).toEqual([[0x44, [0x89]], [0x45, [0x89]], [0x46, [0x89]]]);
    expect(found).toEqual([0x45]);
  });
});
