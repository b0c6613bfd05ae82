// The Kaluma timers port on a model of Kaluma's timers: no program timer is
// a Kaluma timer, so Kaluma's clearTimeout never sees a timer whose callback
// ran (which breaks the loop) and the handle-id counter, past 2^31 of which
// clearTimeout finds nothing, hardly moves (docs/architecture.md, The ports
// and the runtime's defects).
import { afterEach, describe, expect, it } from 'vitest';
import { vi } from 'vitest';
import { kalumaEnv } from './kaluma-env';

const quiet = { connect: () => undefined };
afterEach(() => vi.unstubAllGlobals());

describe('Kaluma timers port', () => {
  it('lets a timer be cleared from its own callback and after it fired, with no clear of a fired Kaluma timer', async () => {
    const k = await kalumaEnv({ peer: quiet });
    const t = k.time.kalumaTimers;
    const order: string[] = [];
    const a = t.setTimeout(() => {
      order.push('a');
      t.clearTimeout(a);
      t.clearTimeout(b);
    }, 50);
    const b = t.setTimeout(() => order.push('b'), 60);
    await k.timers.advance(100);
    t.clearTimeout(a);
    expect(order).toEqual(['a']);
    expect(k.timers.violations).toEqual([]);
  });

  it('fires in deadline order, ties in arming order, and a 0 ms timer armed by a callback on a later tick', async () => {
    const k = await kalumaEnv({ peer: quiet });
    const t = k.time.kalumaTimers;
    const order: string[] = [];
    t.setTimeout(() => order.push('c'), 30);
    t.setTimeout(() => {
      order.push('a1');
      t.setTimeout(() => order.push('zero'), 0);
    }, 20);
    t.setTimeout(() => order.push('a2'), 20);
    await k.timers.advance(25);
    expect(order).toEqual(['a1', 'a2']);
    await k.timers.advance(100);
    expect(order).toEqual(['a1', 'a2', 'zero', 'c']);
  });

  it('serves a counter poll re-armed every 10 ms for an hour with one Kaluma timer id', async () => {
    const k = await kalumaEnv({ peer: quiet });
    const t = k.time.kalumaTimers;
    let polls = 0;
    const poll = (): void => {
      polls++;
      t.setTimeout(poll, 10);
    };
    t.setTimeout(poll, 10);
    await k.timers.advance(3600 * 1000);
    expect(polls).toBeGreaterThan(170000);
    expect(k.timers.idsTaken()).toBe(1);
    expect(k.timers.violations).toEqual([]);
  });

  it('still clears timers once Kaluma ids are past 2^31 (where Kaluma\'s own clearTimeout finds nothing)', async () => {
    const k = await kalumaEnv({ peer: quiet, firstId: 2 ** 31 + 7 });
    const t = k.time.kalumaTimers;
    let fired = 0;
    const id = t.setTimeout(() => fired++, 100);
    t.clearTimeout(id);
    t.setTimeout(() => fired++, 200);
    await k.timers.advance(300);
    expect(fired).toBe(1);
  });

  it('prints a callback that throws and keeps the other timers running', async () => {
    const k = await kalumaEnv({ peer: quiet });
    const t = k.time.kalumaTimers;
    let later = 0;
    t.setTimeout(() => {
      throw new Error('bad sensor');
    }, 10);
    t.setTimeout(() => later++, 20);
    await k.timers.advance(50);
    expect([later, k.printed, k.timers.thrown]).toEqual([1, ['timer: Error: bad sensor'], []]);
  });

  it('stops its interval when nothing is pending and takes a new one when a timer comes', async () => {
    const k = await kalumaEnv({ peer: quiet });
    const t = k.time.kalumaTimers;
    let n = 0;
    t.setTimeout(() => n++, 10);
    await k.timers.advance(100);
    expect([n, k.timers.armed(), k.timers.idsTaken()]).toEqual([1, 0, 1]);
    t.setTimeout(() => n++, 10);
    await k.timers.advance(100);
    expect([n, k.timers.armed(), k.timers.idsTaken(), k.timers.violations]).toEqual([2, 0, 2, []]);
  });

  it('fires a timer at most one tick late', async () => {
    const k = await kalumaEnv({ peer: quiet });
    const t = k.time.kalumaTimers;
    const at: number[] = [];
    for (const ms of [5, 95, 1234, 60000]) t.setTimeout(() => at.push(k.timers.now() - ms), ms);
    await k.timers.advance(70000);
    for (const late of at) expect(late).toBeGreaterThanOrEqual(0);
    for (const late of at) expect(late).toBeLessThanOrEqual(k.time.TICK_MS);
  });
});
