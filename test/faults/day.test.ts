// Case 6: a simulated day at 1 s per sensor (three records a second), with a
// 10-minute service outage and a silent Wi-Fi drop every four hours. The
// outbox stays within its byte bound on flash as in RAM, its depth within
// what the outages explain, and every record arrives in order exactly once.
import { describe, expect, it } from 'vitest';
import { testConfig } from '../fakes/config';
import { OUTAGE, runDay } from './day';

describe('a simulated day', () => {
  it('keeps the outbox bounded and delivers all 259,203 readings in order', async () => {
    const f = await runDay({ keep: true });
    const { stored, produced_, ...figures } = f;
    console.log('[day] ' + JSON.stringify(figures));
    expect(f.simulatedMs).toBe(24 * 3600000);
    // 86,401 sample groups (0 s to 86,400 s), one record per device.
    expect(f.produced).toBe(86401 * 3);
    expect(stored).toEqual(produced_);
    expect(f.delivered).toBe(f.produced);
    expect(f.requests).toBe(f.delivered + f.retries);
    expect(f.dropped).toBe(0);
    expect(f.endDepth).toBe(0);
    expect(f.maxBytes).toBeLessThanOrEqual(f.boundBytes);
    // On flash: the bound plus the acknowledged head of the oldest segment and the cursor.
    expect(f.maxFlashBytes).toBeLessThanOrEqual(f.boundBytes + f.segmentBytes + 64);
    // Depth: what piles up during an outage and the longest backoff after it, and no more.
    const cap = testConfig().agent.backoffCapMs;
    expect(f.maxDepth).toBeLessThanOrEqual(((OUTAGE + cap) / 1000 + 2) * 3);
    expect(f.maxDepth).toBeGreaterThan((OUTAGE / 1000) * 3);
    // Each silent drop is found by failed requests and repaired by one association.
    expect(f.link['associations']).toBe(6);
  });
});
