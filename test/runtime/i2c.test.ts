// I2C sensors on a whole board: a BME280, an SHT4x and a BH1750 on bus 0 of
// the simulated buses, read through the agent's cold modules and delivered
// as JSON, XML and Value writes; a part that stops answering or a bus held
// low is counted, said once, and read again without a restart, while the
// other sensors go on; status(), sensors(), i2cScan() and the health report.
import { afterAll, describe, expect, it } from 'vitest';
import { healthReport } from '../../src/agent/health';
import type { AgentConfig, SensorConfig } from '../../src/config/types';
import { simBh1750, simBme280, simSht4x } from '../../host/ports/i2c-chips';
import { testConfig } from '../fakes/config';
import { Board, provisioned, sharedService } from './harness';
import type { Booted } from './harness';

const service = sharedService();
afterAll(() => undefined);

const bus = (s: Partial<SensorConfig>): SensorConfig => s as SensorConfig;

function i2cConfig(base: AgentConfig): AgentConfig {
  const cfg = structuredClone(base);
  cfg.sensors.push(
    bus({ name: 'air', kind: 'bme280', intervalMs: 10000, filters: [] }),
    bus({ name: 'leaf', kind: 'sht4x', intervalMs: 10000, filters: [], humidityOffset: -5 }),
    bus({ name: 'lux', kind: 'bh1750', intervalMs: 10000, filters: [] }),
  );
  for (const d of cfg.devices) {
    if (d.name === 'tv') d.sensors = ['air.pressure'];
    if (d.name === 'tj') d.sensors = ['temp', 'air', 'leaf.humidity'];
    if (d.name === 'tx') d.sensors = ['door', 'lux'];
  }
  return cfg;
}

/** Puts the three parts on bus 0, with steady values. */
function plug(b: Booted): void {
  b.p.i2c.attach(0, 0x76, simBme280({ target: () => ({ tempC: 21.25, humidity: 44.5, hPa: 1013.2 }) }));
  b.p.i2c.attach(0, 0x44, simSht4x({ target: () => ({ tempC: 19.5, humidity: 60 }) }));
  b.p.i2c.attach(0, 0x23, simBh1750({ lux: () => 1234 }));
}

const writesOf = (id: number, from: number): string[] => service.writes.slice(from).filter((w) => w.deviceId === id).map((w) => w.content);

describe('I2C sensors on a whole board', () => {
  it('deliver every quantity by its name and unit, and the parts failures are counted, said once and outlived', async () => {
    const board = new Board();
    const cfg = i2cConfig(await provisioned(service.svc.url, testConfig()));
    board.save(cfg);
    const ids = Object.fromEntries(cfg.devices.map((d) => [d.name, d.deviceId]));
    const from = service.writes.length;
    const b = board.boot();
    plug(b);
    await b.run(25000);
    // Two steps a sample (started, read), each loading the step's code and the kind's driver, let go after.
    expect(b.loads['i2c-start']).toBe(1);
    expect([b.loads['i2c-go'], b.loads['i2c-read']]).toEqual([3 * 3, 3 * 3]);
    expect([b.loads['bme280'], b.loads['sht4x'], b.loads['bh1750']]).toEqual([6, 6, 6]);
    // One write a period (0, 10 and 20 s), the pin sensor and the parts together: the window waits for the conversions.
    const tj = writesOf(ids['tj'] as number, from).map((t) => JSON.parse(t) as Record<string, number>);
    expect(tj).toHaveLength(3);
    expect(tj.every((w) => 'temp' in w && 'air.temperature' in w && 'leaf.humidity' in w)).toBe(true);
    const json = tj.at(-1) as Record<string, number>;
    expect(Object.keys(json).filter((k) => k.includes('.'))).toEqual(['air.temperature', 'air.humidity', 'air.pressure', 'leaf.humidity']);
    expect(json['air.temperature']).toBeCloseTo(21.25, 1);
    expect(json['air.humidity']).toBeCloseTo(44.5, 1);
    expect(json['air.pressure']).toBeCloseTo(1013.2, 1);
    // Its own calibration: offset -5.
    expect(json['leaf.humidity']).toBeCloseTo(55, 1);
    expect(writesOf(ids['tx'] as number, from).at(-1)).toMatch(/<lux\.illuminance unit="lx">1234\.\d\d<\/lux\.illuminance>/);
    expect(Number(writesOf(ids['tv'] as number, from).at(-1))).toBeCloseTo(1013.2, 1);

    // The SHT4x unplugged for 30 s: its readings stop, the others go on.
    b.p.i2c.fault(0, 0x44, 'nack');
    const mid = service.writes.length;
    await b.run(30000);
    const during = writesOf(ids['tj'] as number, mid).map((t) => JSON.parse(t) as Record<string, number>);
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect(during.every((w) => 'air.pressure' in w && !('leaf.humidity' in w))).toBe(true);
    expect(b.out().filter((l) => l.includes('sensor leaf (sht4x at 0x44, bus 0)')).length).toBe(1);
    let n = b.out().length;
    b.cmd.status!();
    const status = b.out().slice(n).join('\n').replace(/\n {2,}/g, ' ');
    expect(status).toMatch(/i2c +leaf \(sht4x at 0x44, bus 0\): \d+ reads?, [3-9] failed; failing now: .*no answer/);
    expect(status).toMatch(/i2c +air \(bme280 at 0x76, bus 0\): \d+ reads, 0 failed\n/);
    const report = JSON.parse(healthReport(b.rt)) as { i2c: Record<string, { reads: number; failed: number; error: string | null }> };
    expect(report.i2c['leaf']?.failed).toBeGreaterThanOrEqual(3);
    expect(report.i2c['leaf']?.error).toMatch(/no answer/);
    expect(report.i2c['air']).toMatchObject({ failed: 0, error: null });

    // Plugged in again: read at the next period, no restart.
    b.p.i2c.fault(0, 0x44, 'nack', false);
    const back = service.writes.length;
    await b.run(15000);
    expect(writesOf(ids['tj'] as number, back).some((t) => 'leaf.humidity' in (JSON.parse(t) as object))).toBe(true);
    expect(b.out().some((l) => /sensor leaf: reading again \(\d+ failures so far\)/.test(l))).toBe(true);

    // A part holding SDA low: the bus is clocked free and it is said once.
    b.p.i2c.fault(0, 0x76, 'holdSda');
    await b.run(25000);
    expect(b.out().filter((l) => l.startsWith('i2c bus 0: SDA held low;')).length).toBe(1);
    const after = service.writes.length;
    await b.run(15000);
    expect(writesOf(ids['tj'] as number, after).some((t) => 'air.temperature' in (JSON.parse(t) as object))).toBe(true);

    // sensors(): each quantity's last value with its age; i2cScan(): who answers
    // (an SHT part converting does not: the scan comes between conversions).
    await b.run(100);
    n = b.out().length;
    b.cmd.sensors!();
    b.cmd.i2cScan!(0);
    b.cmd.i2cScan!(2);
    const shown = b.out().slice(n).join('\n');
    expect(shown).toMatch(/air\.humidity = 44\.\d+ %RH \(read \d+ s ago\)/);
    expect(shown).toMatch(/lux\.illuminance = 1234(\.\d+)? lx/);
    expect(shown).toContain('bus 0 (SDA GP4, SCL GP5): 0x23 (bh1750), 0x44 (sht3x or sht4x), 0x76 (bme280)');
    expect(shown).toContain('i2cScan: bus must be 0 or 1, e.g. i2cScan(0)');
    b.rt.stop();
  }, 60000);

  it('load none of the I2C code on a board without I2C sensors', async () => {
    const board = new Board();
    board.save(await provisioned(service.svc.url, testConfig()));
    const b = board.boot();
    await b.run(15000);
    expect(Object.keys(b.loads).filter((k) => ['i2c-start', 'i2c-go', 'i2c-read', 'bme280', 'sht3x', 'sht4x', 'bh1750'].includes(k))).toEqual([]);
    expect(b.rt.agent()!.i2c).toBeUndefined();
    // The scan opens the bus for itself and closes it.
    const n = b.out().length;
    plug(b);
    b.cmd.i2cScan!(0);
    expect(b.out().slice(n).join('\n')).toContain('bus 0 (SDA GP4, SCL GP5): 0x23 (bh1750), 0x44 (sht3x or sht4x), 0x76 (bme280)');
    b.rt.stop();
  });
});
