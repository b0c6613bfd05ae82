// A small fleet on a running local service, made through its API as boards
// and people would: a configuration device holding a board's document, the
// board's health device, the devices it writes (a Value one, a JSON one whose
// writes carry seq/uptime_ms), an XML device with units, and a control device
// its relay reads. The board's health report is written as src/agent/health.ts
// writes it, with the fields of issue 36 (config, configSource, remote).

import { call, provision } from './helpers';

export interface Dev {
  key: string;
  id: number;
  pin: number;
}

export interface Fleet {
  cfg: Dev;
  health: Dev;
  tv: Dev;
  tj: Dev;
  tx: Dev;
  ctl: Dev;
  /** The document stored in `cfg`. */
  doc: Record<string, unknown>;
}

export const UID = 'E661410403AB';

export async function makeFleet(port: number, email = 'fleet@example.com'): Promise<Fleet> {
  const cfg = await provision(port, 'JSON', email, 'pw-fleet', 'fleet_cfg');
  const health = await provision(port, 'JSON', email, 'pw-fleet', 'board_health');
  const tv = await provision(port, 'Value', email, 'pw-fleet', 'tv');
  const tj = await provision(port, 'JSON', email, 'pw-fleet', 'tj');
  const tx = await provision(port, 'XML', email, 'pw-fleet', 'tx');
  const ctl = await provision(port, 'Value', email, 'pw-fleet', 'relay_ctl');
  const doc = {
    board: 'pico-w',
    sensors: [
      { name: 'temp', kind: 'temperature', pin: 30, intervalMs: 60000 },
      { name: 'air', kind: 'bme280', bus: 0 },
    ],
    devices: [
      { name: 'tv', deviceId: tv.id, devicePin: tv.pin, format: 'Value', sensors: ['temp'] },
      { name: 'tj', deviceId: tj.id, devicePin: tj.pin, format: 'JSON', sensors: ['temp', 'air'] },
    ],
    outputs: [{ name: 'relay', kind: 'digital', pin: 16, sourceId: ctl.id, sourcePin: ctl.pin, pollMs: 5000 }],
    health: { id: health.id, pin: health.pin, intervalMs: 60000 },
  };
  await writeJson(port, cfg, JSON.stringify(doc));
  for (const v of [20.5, 21, 22.25]) {
    await call(port, 'GET', `/api/updatedevicevalue/${tv.key}/${tv.id}/${tv.pin}/${v}`);
    await writeJson(port, tj, JSON.stringify({ temp: v, 'air.humidity': 45, seq: 3, uptime_ms: 1000 }));
    await call(port, 'POST', `/api/updatedevicexml/${tx.key}/${tx.id}/${tx.pin}`, `<reading seq="4" uptime_ms="9"><ldr unit="V">${v / 10}</ldr></reading>`);
  }
  await call(port, 'GET', `/api/updatedevicevalue/${ctl.key}/${ctl.id}/${ctl.pin}/0`);
  return { cfg, health, tv, tj, tx, ctl, doc };
}

export async function writeJson(port: number, d: Dev, body: string): Promise<void> {
  const r = await call(port, 'POST', `/api/updatedevicejson/${d.key}/${d.id}/${d.pin}`, body);
  if (r.status !== 200) throw new Error(`updatedevicejson: ${r.status} ${r.body}`);
}

/** A health report as a board writes it; `remote` and `outputs` as issue 36's contract says. */
export function report(f: Fleet, o: { crc?: string | null; outcome?: string; refused?: number; ignored?: string[]; intervalS?: number } = {}): string {
  return JSON.stringify({
    fw: '0.2.0',
    board: 'pico-w',
    uid: UID,
    boot: 7,
    uptimeS: 3700,
    intervalS: o.intervalS ?? 60,
    lastReset: 'reboot() asked',
    mode: 'running',
    heap: { used: 97000, peak: 110000, total: 184312 },
    config: 'a1b2c3d4',
    configSource: 'service',
    remote: { id: f.cfg.id, crc: o.crc === undefined ? 'deadbeef' : o.crc, outcome: o.outcome ?? 'applied', ignored: o.ignored ?? [], atS: 30 },
    outbox: { depth: 4, bytes: 300, oldestS: 12, dropped: 1, rejected: 0 },
    delivery: { writes: 10, readings: 12, retries: 0, rejected: 0, lastS: 3 },
    held: { tx: { status: 404, reason: 'device not found', sinceS: 10, nextS: 5, tries: 2 } },
    outputs: { relay: { level: 0, safe: false, goodS: 3, reads: 10, failed: 1, refused: o.refused ?? 2 } },
    error: null,
  });
}
