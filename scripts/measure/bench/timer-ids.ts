// Kaluma's timer handle ids: one uint32 counter for every handle, and from
// 2^31 on clearTimeout() finds nothing (docs/architecture.md, The ports and the runtime's defects). The
// real device bundle runs in the Kaluma stand-in (test/bundle/kaluma-sim.ts)
// with the reference configuration plus one counter sensor polled every
// 10 ms, delivering to a service that answers every write; the stand-in
// counts the handle ids the program takes.
import { readFileSync } from 'node:fs';
import { buildBundle } from '../../build/build';
import { toSaved } from '../../../src/config/saved';
import type { AgentConfig } from '../../../src/config/types';
import { defaultConfig } from '../../../src/config/validate';
import { createKalumaSim } from '../../../test/bundle/kaluma-sim';
import { testConfig } from '../../../test/fakes/config';

/** The reference configuration of the heap issue, plus a counter sensor. */
export function referenceConfig(o: { counter?: boolean; intervalMs?: number; i2c?: boolean } = {}): AgentConfig {
  const c = testConfig('http://data.example.net:8080/dds');
  // The agent section as a user gets it: watchdog, last-known-good and heap floor on.
  c.agent = defaultConfig().agent;
  const every = o.intervalMs ?? 1000;
  c.wifi = { ssid: 'greenhouse-north', password: 'secret-pass' };
  c.sensors = [
    { name: 'temp', kind: 'temperature', pin: 30, intervalMs: every, unit: 'C', filters: [], oversample: 1 },
    { name: 'soil', kind: 'analog', pin: 26, intervalMs: every, unit: '%', filters: [{ type: 'median', window: 5 }], points: [[0.5, 0], [2.5, 100]] },
    { name: 'door', kind: 'digital', pin: 15, intervalMs: every, unit: '', filters: [], pull: 'up' },
  ];
  c.devices = [
    { name: 'tv', deviceId: 1, devicePin: 1111, format: 'Value', sensors: ['temp'], decimals: 2 },
    { name: 'tj', deviceId: 2, devicePin: 2222, format: 'JSON', sensors: ['temp', 'soil', 'door'], decimals: 2 },
    { name: 'tx', deviceId: 3, devicePin: 3333, format: 'XML', sensors: ['soil', 'door'], decimals: 2 },
  ];
  if (o.i2c) {
    // One BME280 and one SHT4x on bus 0 (the budget case), carried by the JSON device.
    c.sensors.push({ name: 'air', kind: 'bme280', intervalMs: every, filters: [], bus: 0, address: 0x76 } as unknown as AgentConfig['sensors'][0]);
    c.sensors.push({ name: 'leaf', kind: 'sht4x', intervalMs: every, filters: [], bus: 0, address: 0x44 } as unknown as AgentConfig['sensors'][0]);
    c.devices[1]!.sensors.push('air', 'leaf');
  }
  if (o.counter) {
    c.sensors.push({ name: 'pulses', kind: 'counter', pin: 14, intervalMs: every, unit: '', filters: [], pull: 'up', pollMs: 10 });
    c.devices[1]!.sensors.push('pulses');
  }
  return c;
}

export interface TimerIdRate {
  simulatedS: number;
  idsTaken: number;
  writes: number;
  /** Host name lookups inside connect() (each a DNS wait on the board). */
  dnsLookups: number;
  idsPerS: number;
  yearsTo2e31: number;
}

export async function timerIdRate(simulatedS = 600): Promise<TimerIdRate> {
  const b = await buildBundle({ outfile: 'dist/bench-agent.js' });
  const files = new Map([['/config.json', new TextEncoder().encode(JSON.stringify(toSaved(referenceConfig({ counter: true }))))]]);
  const k = createKalumaSim({ files, ssid: 'greenhouse-north' });
  k.net.dns['data.example.net'] = '10.0.0.5';
  k.run(readFileSync(b.outfile, 'utf8'));
  await k.advance(simulatedS * 1000);
  const idsPerS = k.timers.idsTaken() / simulatedS;
  const harm = k.harm();
  if (harm.length) throw new Error('the bundle did what would hurt the board: ' + harm.join('; '));
  return { simulatedS, idsTaken: k.timers.idsTaken(), writes: k.requests.length, dnsLookups: k.net.dnsLookups, idsPerS, yearsTo2e31: 2 ** 31 / Math.max(idsPerS, 1e-9) / (365.25 * 86400) };
}
