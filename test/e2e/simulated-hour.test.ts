// One simulated hour of sampling (fake clock) delivered over real HTTP on
// loopback to the local Device Data Service, then read back through the
// service's read operations.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/agent';
import { createHttpClient } from '../../src/net/http';
import { createMemoryOutbox } from '../../src/queue/memory';
import { createServiceOps } from '../../src/service/reads';
import type { ServiceOps } from '../../src/service/reads';
import { createNodeSockets } from '../../host/ports/sockets';
import { createNodeTime } from '../../host/ports/time';
import { startService } from '../../host/service/server';
import type { RunningService, WriteEvent } from '../../host/service/server';
import { testConfig } from '../fakes/config';
import { provisionConfig } from '../fakes/provision';
import { createTestPlatform } from '../fakes/platform';
import { createFakeTime, flushPromises } from '../fakes/time';

let svc: RunningService;
let dir: string;
let client: ServiceOps;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'e2e-'));
  svc = await startService({ dataDir: dir, log: () => undefined });
  const { timers } = createNodeTime();
  const made = createServiceOps({ http: createHttpClient({ sockets: createNodeSockets(), timers }), baseUrl: svc.url });
  if (!made.ok) throw new Error(made.error);
  client = made.client;
});

afterAll(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a simulated hour against the local service', () => {
  it('delivers every reading in order as value, JSON and XML writes and reads them back', async () => {
    // Provisioned through the agent's own path: key generation, then devices.
    const cfg = await provisionConfig(svc.url, testConfig(), 'e2e@example.com', 'pw-e2e-1');
    for (const s of cfg.sensors) s.intervalMs = 30000;

    const writes: WriteEvent[] = [];
    svc.events.on('write', (w: WriteEvent) => writes.push(w));
    const time = createFakeTime();
    const p = createTestPlatform({ time });
    const queue = createMemoryOutbox({ maxRecords: 5000 });
    const made = createAgent({ p, config: cfg, queue, bootId: 1 });
    if (!made.ok) throw new Error(made.error);
    const agent = made.agent;
    // Real sockets under a fake clock: let each request finish in real time.
    const settle = async (): Promise<void> => {
      await flushPromises();
      while (agent.uplink.stats().inFlightSinceMs !== undefined) await new Promise((r) => setTimeout(r, 1));
      await flushPromises();
    };
    agent.start();
    await time.advance(3600000, settle);
    await time.advance(1000, settle);
    agent.stop();

    // 0 s to 3600 s every 30 s: 121 sample groups, one write per device each.
    const byDevice = (id: number) => writes.filter((w) => w.deviceId === id).map((w) => w.content);
    const [tv, tj, tx] = cfg.devices.map((d) => byDevice(d.deviceId));
    expect([tv!.length, tj!.length, tx!.length]).toEqual([121, 121, 121]);
    const jsonSeqs = tj!.map((c) => (JSON.parse(c) as { seq: number }).seq);
    expect(jsonSeqs).toEqual([...jsonSeqs].sort((a, b) => a - b));
    const uptimes = tj!.map((c) => (JSON.parse(c) as { uptime_ms: number }).uptime_ms);
    expect(uptimes).toEqual(Array.from({ length: 121 }, (_, i) => i * 30000));
    const xmlSeqs = tx!.map((c) => Number(/seq="(\d+)"/.exec(c)![1]));
    expect(xmlSeqs).toEqual([...xmlSeqs].sort((a, b) => a - b));
    expect(queue.stats().depth).toBe(0);
    expect(agent.uplink.stats().delivered).toBe(363);

    // The clock was set from the service's Date header by the first reply.
    expect(agent.time.known()).toBe(true);
    expect(JSON.parse(tj![120]!)).toHaveProperty('ts');

    const ref = (i: number) => ({ apiKey: cfg.service.apiKey, deviceId: cfg.devices[i]!.deviceId, devicePin: cfg.devices[i]!.devicePin });
    const v = await client.readValue(ref(0));
    const j = await client.readJson(ref(1));
    const x = await client.readXml(ref(2));
    expect(v.kind === 'ok' && v.value).toBe(tv![120]);
    expect(j.kind === 'ok' && j.value).toEqual(JSON.parse(tj![120]!));
    expect(x.kind === 'ok' && x.value).toBe(tx![120]);
  });
});
