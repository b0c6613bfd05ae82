// Case 2: a service that answers 30% of requests with 503 or 429
// (Retry-After: 1), and one that drops 30% of connections without an answer.
// Real HTTP on loopback, fake clock; every attempt is recorded on the fake
// clock through a writer that wraps the agent's own service client.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { backoffMs } from '../../src/agent/uplink';
import { createSimWifi } from '../../host/ports/wifi';
import type { FaultOptions } from '../../host/service/server';
import { createMemoryFileStore } from '../fakes/files';
import { byDevice, realSettle, recordingWriter, Rig, seeded, seqIn } from './harness';
import type { Attempt } from './harness';
import { startTestService } from './service';
import type { TestService } from './service';

let ts: TestService | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  if (ts) await ts.close();
  ts = undefined;
});

/** Runs 20 simulated minutes of sampling against a faulty service, then drains. */
async function runAgainst(faults: FaultOptions, seed: number) {
  vi.spyOn(Math, 'random').mockImplementation(seeded(seed));
  ts = await startTestService(faults);
  const cfg = ts.config;
  const attempts: Attempt[] = [];
  const recording = recordingWriter(cfg, attempts);
  const rig = new Rig({ config: cfg, files: createMemoryFileStore(), wifi: createSimWifi({ ssid: 'field-net', up: true }), writer: recording });
  rig.boot();
  const settle = realSettle(() => rig.agent);
  await rig.run(20 * 60000, 1000, settle);
  rig.agent.sampler.stop();
  await rig.run(10 * 60000, 1000, settle);
  return { rig, attempts, cfg, received: ts.received };
}

function expectAllDelivered(rig: Rig, received: Record<string, string[]>, names: string[]): void {
  const produced = byDevice(rig.produced);
  for (const n of names) expect(received[n], n).toEqual(produced[n]);
  const tx = (received['tx'] ?? []).map(seqIn);
  expect(tx).toEqual(rig.produced.filter((r) => r.device === 'tx').map((r) => r.seq));
  expect(rig.queue.stats()).toMatchObject({ depth: 0, dropped: 0, rejected: 0 });
  // 0 s to 1200 s every 10 s, three devices.
  expect(rig.produced.length).toBe(121 * 3);
}

describe('a service that fails 30% of requests', () => {
  it('answers 503/429 with Retry-After: everything arrives in order and each retry waits exactly Retry-After', async () => {
    const { rig, attempts, cfg, received } = await runAgainst({ errorShare: 0.3 }, 2);
    expectAllDelivered(rig, received, cfg.devices.map((d) => d.name));
    const failed = attempts.filter((a) => a.outcome.kind !== 'ok');
    const statuses = failed.map((a) => (a.outcome.kind === 'retry' ? /HTTP (\d+)/.exec(a.outcome.reason)?.[1] : a.outcome.kind));
    console.log(
      `[server-errors] ${attempts.length} requests for ${rig.produced.length} records; ${failed.length} failed ` +
        `(${statuses.filter((s) => s === '503').length} x 503, ${statuses.filter((s) => s === '429').length} x 429)`,
    );
    expect(new Set(statuses)).toEqual(new Set(['503', '429']));
    expect(failed.length / attempts.length).toBeGreaterThan(0.2);
    expect(failed.length / attempts.length).toBeLessThan(0.4);
    expect(rig.agent.uplink.stats().retries).toBe(failed.length);
    // Each failed attempt is followed by the next one exactly Retry-After later, for the same device.
    for (let i = 0; i < attempts.length - 1; i++) {
      const a = attempts[i]!;
      if (a.outcome.kind !== 'retry') continue;
      expect(a.outcome.retryAfterMs).toBe(1000);
      expect(attempts[i + 1]!.atMs - a.atMs, `gap after attempt ${i}`).toBe(1000);
      expect(attempts[i + 1]!.device).toBe(a.device);
    }
  });

  it('drops connections without an answer: everything arrives in order and retries back off exponentially', async () => {
    const { rig, attempts, cfg, received } = await runAgainst({ dropShare: 0.3 }, 3);
    expectAllDelivered(rig, received, cfg.devices.map((d) => d.name));
    const { baseMs, capMs } = { baseMs: cfg.agent.backoffBaseMs, capMs: cfg.agent.backoffCapMs };
    // Replays the uplink's attempt counter: nth failure in a row waits within [ceiling/2, ceiling].
    let run = 0;
    const gaps: number[][] = [];
    for (let i = 0; i < attempts.length - 1; i++) {
      const a = attempts[i]!;
      if (a.outcome.kind === 'ok') {
        run = 0;
        continue;
      }
      expect(a.outcome.kind).toBe('retry');
      expect(a.outcome.kind === 'retry' && a.outcome.retryAfterMs).toBeUndefined();
      run++;
      const ceiling = Math.min(capMs, baseMs * 2 ** (run - 1));
      const gap = attempts[i + 1]!.atMs - a.atMs;
      expect(gap, `gap after failure ${run} in a row`).toBeGreaterThanOrEqual(backoffMs(run, baseMs, capMs, () => 0));
      expect(gap).toBeLessThanOrEqual(ceiling);
      (gaps[run - 1] ??= []).push(gap);
    }
    const failed = attempts.filter((a) => a.outcome.kind !== 'ok').length;
    const mean = gaps.map((g) => Math.round(g.reduce((s, x) => s + x, 0) / g.length));
    console.log(`[server-errors] dropped connections: ${attempts.length} requests, ${failed} failed; mean gap by failures in a row (ms): ${mean.join(', ')}`);
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    // The gaps grow: the mean wait after the k-th failure in a row rises with k.
    for (let k = 1; k < Math.min(gaps.length, 4); k++) expect(mean[k]!).toBeGreaterThan(mean[k - 1]!);
  });
});
