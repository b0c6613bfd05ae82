// On the device's runtime built for the PC, when one is given (KALUMA_ENGINE;
// .ci/run points it at ../shared/engine/kaluma-heap180 when that is there):
// the timers port under the pattern that breaks Kaluma's loop, and the HTTP
// client with the Kaluma ports through 1,000 bad exchanges. Without an engine
// these tests are skipped, and one line says so.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runHttpFaults } from '../../scripts/engine/http-faults';
import { runTimers } from '../../scripts/engine/timers';

const engine = process.env['KALUMA_ENGINE'];
const usable = !!engine && existsSync(engine);
if (!usable) console.log('engine tests skipped: set KALUMA_ENGINE to the device runtime built for the PC');

describe.skipIf(!usable)('on the device engine', () => {
  it('timers port: 3,000 timers cleared from their own callback, no fatal error, and the program ends by itself', async () => {
    const r = await runTimers(engine!);
    expect(r.verdict).toBe('exit 0');
    expect(r.done).toBe(true);
    expect(r.cost!.perPortTimer).toBeLessThan(128);
  }, 150000);

  it('HTTP client and Kaluma ports: 1,000 bad exchanges, no fatal error, nothing that would hurt the board, a flat heap floor', async () => {
    const r = await runHttpFaults(engine!);
    expect(r.verdict).toBe('exit 0');
    expect(r.result!.exchanges).toBe(1000);
    expect(r.result!.violations).toEqual([]);
    expect(Math.abs(r.floorGrowth!)).toBeLessThan(4096);
    expect(r.result!.largestDriverWrite).toBeLessThanOrEqual(1025);
  }, 600000);
});
