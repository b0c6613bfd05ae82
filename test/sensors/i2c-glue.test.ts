// The I2C sensors' glue (src/sensors/i2c/sensors.ts) with a scripted bus and
// a scripted driver: conversions end on a timer, each quantity calibrated and
// filtered on its own, failures counted and said once per change, a part
// plugged in later read without a restart, a held bus freed and said so.
import { describe, expect, it } from 'vitest';
import type { SampleEvent } from '../../src/agent/sampler';
import { configOf } from '../fakes/validate';
import { createChain } from '../../src/filters/index';
import type { I2cBus, I2cPorts } from '../../src/ports/ports';
import type { Chip, Driver } from '../../src/sensors/i2c/driver';
import { scanBus, startI2c } from '../../src/sensors/i2c/sensors';
import type { I2cSensors } from '../../src/sensors/i2c/sensors';
import { createFakeTime } from '../fakes/time';

interface Script {
  /** What the next init, start or read gives: a failure string, or undefined for success. */
  init?: string;
  start?: string;
  read?: string;
  values: number[];
  note?: string;
  held?: string;
}

function rig(sensors: Record<string, unknown>[], script: Script) {
  const time = createFakeTime(1000);
  const lines: string[] = [];
  const log = { info: (l: string) => lines.push('I ' + l), error: (l: string) => lines.push('E ' + l) };
  const opened: number[][] = [];
  let closed = 0;
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
    close: () => void closed++,
  };
  const ports: I2cPorts = { open: (...a) => (opened.push(a), bus) };
  const starts: number[] = [];
  const driver: Driver = () => {
    if (script.init) return script.init;
    const chip: Chip = {
      note_: script.note,
      start_: () => (starts.push(time.now()), script.start ?? 10),
      read_: () => script.read ?? script.values.slice(),
    };
    return chip;
  };
  const cfg = configOf({ sensors, devices: [{ name: 'd', deviceId: 1, devicePin: 1, format: 'JSON', sensors: sensors.map((s) => s.name) }] });
  const events: SampleEvent[] = [];
  const made = startI2c({
    cfgs: cfg.sensors,
    p: { i2c: ports, timers: time.timers, log, clock: time.clock },
    load: <T>(name: string) => (name === 'bme280' || name === 'sht4x' ? { ok: true as const, value: driver as T } : { ok: false as const, error: 'cold code ' + name + ': not here' }),
    chain: createChain,
    emit: (e) => events.push(e),
  });
  if (typeof made === 'string') throw new Error(made);
  const i2c: I2cSensors = made;
  /** One period: every sensor sampled, then the conversion time passed. */
  const period = (): void => {
    for (const s of i2c.sensors) expect(s.sample()).toBeNull();
    time.advanceSync(20);
  };
  return { time, lines, opened, events, i2c, period, starts, closed: () => closed, recovered: () => recovered };
}

const air = { name: 'air', kind: 'bme280' };

describe('I2C sensors', () => {
  it('read each quantity after the conversion time, on a timer, with its unit and name', () => {
    const r = rig([air], { values: [21.5, 45, 1013.25] });
    r.i2c.sensors[0]?.sample();
    // Nothing before the part's conversion time: the loop was not blocked.
    expect(r.events).toEqual([]);
    r.time.advanceSync(9);
    expect(r.events).toEqual([]);
    r.time.advanceSync(1);
    expect(r.events.map((e) => [e.sensor, e.base, e.value, e.unit])).toEqual([
      ['air.temperature', 'air', 21.5, 'C'],
      ['air.humidity', 'air', 45, '%RH'],
      ['air.pressure', 'air', 1013.25, 'hPa'],
    ]);
    expect(r.opened).toEqual([[0, 4, 5, 100000]]);
    expect(r.i2c.stats()).toMatchObject([{ name: 'air', reads: 1, failures: 0 }]);
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

  it('skip a quantity the part does not have (a BMP280: NaN humidity), said once at start', () => {
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
    expect(r.i2c.stats()).toMatchObject([{ name: 'air', reads: 0, failures: 5, error: 'reading chip id: no answer' }]);
    expect(r.lines).toEqual(['E sensor air (bme280 at 0x76, bus 0): reading chip id: no answer; tried again every period']);
    script.init = undefined;
    r.period();
    expect(r.events).toHaveLength(3);
    expect(r.lines[1]).toBe('I sensor air: reading again (5 failures so far)');
    expect(r.i2c.stats()[0]).toMatchObject({ reads: 1, failures: 5, error: undefined });
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
    expect(r.i2c.stats()[0]?.failures).toBe(4);
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
    const r = rig([air], { start: undefined, values: [1, 2, 3] });
    r.i2c.sensors[0]?.sample();
    r.i2c.sensors[0]?.sample();
    expect(r.starts).toHaveLength(1);
  });

  it('open a shared bus once and close it with its last sensor', () => {
    const r = rig([air, { name: 'leaf', kind: 'sht4x' }], { values: [1, 2] });
    expect(r.opened).toHaveLength(1);
    r.i2c.sensors[0]?.close();
    expect(r.closed()).toBe(0);
    r.i2c.sensors[1]?.close();
    r.i2c.sensors[1]?.close();
    expect(r.closed()).toBe(1);
    expect(r.i2c.sensors[0]?.sample()).toBeNull();
    expect(r.time.pending()).toBe(0);
  });

  it('list the addresses that answer on an open bus', () => {
    const r = rig([air], { values: [1, 2, 3] });
    expect(r.i2c.scan(0)).toEqual([0x44, 0x76]);
    expect(r.i2c.scan(1)).toBeUndefined();
  });

  it('show the last value of each quantity for sensors()', () => {
    const r = rig([air], { values: [21, 40, 1000] });
    r.period();
    expect(r.i2c.latest().map((e) => [e.sensor, e.value, e.unit])).toEqual([
      ['air.temperature', 21, 'C'], ['air.humidity', 40, '%RH'], ['air.pressure', 1000, 'hPa'],
    ]);
  });

  it('refuse to start without a driver, naming it, and close the bus it opened', () => {
    const time = createFakeTime();
    let closed = 0;
    const ports: I2cPorts = { open: () => ({ write: () => undefined, read: () => 'x', stuck: () => undefined, recover: () => '', close: () => void closed++ }) };
    const cfg = configOf({ sensors: [{ name: 'lux', kind: 'bh1750' }] });
    const made = startI2c({ cfgs: cfg.sensors, p: { i2c: ports, timers: time.timers, log: { info() {}, error() {} }, clock: time.clock }, load: () => ({ ok: false, error: 'cold code bh1750: not enough heap' }), chain: createChain, emit: () => undefined });
    expect(made).toBe('sensor lux: the bh1750 driver: cold code bh1750: not enough heap');
    expect(closed).toBe(1);
  });
});

describe('scanBus', () => {
  it('tries 0x08 to 0x77 only', () => {
    const asked: number[] = [];
    scanBus({ write: () => undefined, read: (a) => (asked.push(a), 'no answer'), stuck: () => undefined, recover: () => '', close: () => undefined });
    expect(asked[0]).toBe(0x08);
    expect(asked[asked.length - 1]).toBe(0x77);
    expect(asked).toHaveLength(0x70);
  });

  it('asks an SHT address that refuses a read with a one-byte write of 0x89, and no other address', () => {
    const wrote: [number, number[]][] = [];
    const found = scanBus({ write: (a, b) => (wrote.push([a, b]), a === 0x45 ? 'took 0 of 1 bytes' : 'no answer'), read: () => 'no answer', stuck: () => undefined, recover: () => '', close: () => undefined });
    expect(wrote).toEqual([[0x44, [0x89]], [0x45, [0x89]], [0x46, [0x89]]]);
    expect(found).toEqual([0x45]);
  });
});
