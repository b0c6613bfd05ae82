// On the device's runtime built for the PC, when one is given (KALUMA_ENGINE;
// .ci/run finds it beside the checkout when CI has it there):
// the timers port under the pattern that breaks Kaluma's loop, and the HTTP
// client with the Kaluma ports through 1,000 bad exchanges, the system port's
// collection from JavaScript, and the bundle's
// cold code read back from the program area. Without an engine
// these tests are skipped, and one line says so.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBoard } from '../../scripts/measure/engine/board';
import { runCollect } from '../../scripts/measure/engine/collect';
import { runHttpFaults } from '../../scripts/measure/engine/http-faults';
import { engineCommand } from '../../scripts/measure/engine/lib';
import { runTimers } from '../../scripts/measure/engine/timers';
import { referenceConfig } from '../../scripts/measure/bench/timer-ids';
import { toSaved } from '../../src/config/saved';

const engine = process.env['KALUMA_ENGINE'];
const how = engine && existsSync(engine) ? engineCommand(engine) : 'set KALUMA_ENGINE to the device runtime built for the PC';
const usable = typeof how !== 'string';
if (!usable) console.log('engine tests skipped: ' + how);

describe.skipIf(!usable)('on the device engine', () => {
  it('timers port: 3,000 timers cleared from their own callback, no fatal error, and the program ends by itself', async () => {
    const r = await runTimers(engine!);
    expect(r.verdict).toBe('exit 0');
    expect(r.done).toBe(true);
    expect(r.cost!.perPortTimer).toBeLessThan(128);
  }, 150000);

  it('system port: a collection asked for from JavaScript frees the garbage, and the guard keeps bulky garbage within a step of the live set', async () => {
    const r = await runCollect(engine!);
    expect(r.verdict).toBe('exit 0');
    const c = r.collect!;
    // 8 KB of garbage in four objects: gone, and heapPeak moved by a few bytes at most.
    expect(c.before - c.after).toBeGreaterThan(7000);
    expect(c.after - c.live).toBeLessThan(512);
    expect(c.peakAfter - c.peakBefore).toBeLessThan(512);
    const g = r.guard!;
    // Without the guard the engine lets several steps go by; with it, heapUsed stays within one.
    expect(g.without).toBeGreaterThan(2 * g.step);
    expect(g.withGuard).toBeLessThanOrEqual(g.step);
  }, 60000);

  it('HTTP client and Kaluma ports: 1,000 bad exchanges, no fatal error, nothing that would hurt the board, a flat heap floor', async () => {
    const r = await runHttpFaults(engine!);
    expect(r.verdict).toBe('exit 0');
    expect(r.result!.exchanges).toBe(1000);
    expect(r.result!.violations).toEqual([]);
    expect(Math.abs(r.floorGrowth!)).toBeLessThan(4096);
    expect(r.result!.largestDriverWrite).toBeLessThanOrEqual(1025);
  }, 600000);

  it('the unmodified bundle, stored as .flash -w stores it: console commands load their cold code from the program area, and leave no heap behind', async () => {
    const r = await runBoard(engine!, {
      name: 'engine-test-cold',
      seconds: 40,
      periodMs: 1000,
      typed: [
        { atMs: 1000, line: '.gc' }, { atMs: 1100, line: '.mem' },
        { atMs: 2000, line: 'help()' }, { atMs: 3500, line: 'status()' }, { atMs: 5000, line: 'config()' }, { atMs: 6500, line: 'help()' },
        { atMs: 8500, line: '.gc' }, { atMs: 8600, line: '.mem' },
      ],
      until: (ms) => ms.length >= 12,
    });
    const out = r.run.stdout;
    expect(r.died).toBe(false);
    expect(out).toContain('status()               uptime, Wi-Fi, deliveries, outbox, heap, errors');
    expect(out).toMatch(/agent {5}0\.1\.0, console-only, boot 1/);
    expect(out).toContain('board = pico-w');
    expect(out).not.toContain('cold code');
    // Their strings come from a table the collector frees: after four commands the live set is where it was (within 2 KB).
    const [before, after] = [r.mems[0], r.mems[r.mems.length - 1]];
    expect(r.mems.length).toBeGreaterThanOrEqual(2);
    expect(after!.occupied - before!.occupied).toBeLessThan(2048);
  }, 120000);

  it('the unmodified bundle with two outputs: each follows its control device on the stand-in service, and status() shows them', async () => {
    const c = referenceConfig();
    // The stand-in changes both stored values at every other read (scripts/measure/engine/board.entry.ts).
    c.outputs = [
      { name: 'relay', kind: 'digital', pin: 16, sourceId: 8, sourcePin: 8, field: '', pollMs: 5000, safe: 0, failsafeMs: 600000, invert: false },
      { name: 'vent', kind: 'pwm', pin: 18, sourceId: 10, sourcePin: 10, field: 'vent', pollMs: 5000, safe: 0, failsafeMs: 600000, freqHz: 1000, scale: 100 },
    ];
    const r = await runBoard(engine!, {
      name: 'engine-test-outputs',
      seconds: 60,
      periodMs: 1000,
      config: toSaved(c),
      // The first boot checks the flashed config and restarts into the agent.
      typed: [{ atMs: 14000, line: 'status()' }],
      typedOnBoot: 2,
      until: (ms) => ms.length >= 18,
    });
    const out = r.run.stdout;
    expect(r.died).toBe(false);
    expect(out).not.toMatch(/SyntaxError|TypeError|ReferenceError/);
    expect(out).toContain('output relay: GP16 -> off (safe level until the first good read)');
    expect(out).toContain('output vent: 0% -> 75% (source 10)');
    expect(out).toContain('output relay: off -> on (source 8)');
    expect(out).toContain('output relay: on -> off (source 8)');
    expect(out).toMatch(/output {4}relay GP16 (on|off), source 8, good read \d+ s ago/);
    expect(out).toMatch(/output {4}vent GP18 (75|20)%, source 10\.vent/);
  }, 120000);

  it('the unmodified bundle with one device refused (401) for a while: it is held, the lanes\' cold code loads, status() says so, and it delivers again', async () => {
    const r = await runBoard(engine!, {
      name: 'engine-test-held',
      seconds: 100,
      periodMs: 1000,
      config: toSaved(referenceConfig()),
      // The JSON device (id 2) is refused until the program's clock reaches 35 s.
      refuse: { deviceId: 2, untilMs: 35000 },
      typed: [{ atMs: 12000, line: 'status()' }],
      typedOnBoot: 2,
      until: (_ms, out) => out.includes('uplink: device tj delivers again after'),
    });
    const out = r.run.stdout;
    expect(r.died).toBe(false);
    expect(out).not.toMatch(/SyntaxError|TypeError|ReferenceError|cold code held/);
    expect(out).toContain('uplink: device tj held, its readings wait: HTTP 401 Unauthorized');
    expect(out).toMatch(/held {6}device tj: HTTP 401 Unauthorized/);
    expect(out).toContain('uplink: device tj delivers again after');
    // Said once, not once per reading.
    expect(out.split('uplink: device tj held').length - 1).toBe(1);
  }, 150000);
});
