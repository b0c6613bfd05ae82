import { describe, expect, it } from 'vitest';
import { createFakeTime } from '../fakes/time';
import { createWatchdogFeeder, watchdogTimeoutMs } from '../../src/agent/watchdog';
import type { Log, Watchdog } from '../../src/ports/ports';


function setup(timeoutMs = 8000) {
  const time = createFakeTime();
  const events: string[] = [];
  const watchdog: Watchdog = {
    start: (ms) => events.push(time.now() + ' start ' + ms),
    feed: () => events.push(time.now() + ' feed'),
    keepAlive: () => events.push(time.now() + ' keepAlive'),
  };
  const lines: string[] = [];
  const log: Log = { info: (l) => lines.push('info ' + l), error: (l) => lines.push('error ' + l) };
  const health: { reason: string | undefined } = { reason: undefined };
  const feeder = createWatchdogFeeder({
    watchdog,
    timers: time.timers,
    clock: time.clock,
    timeoutMs,
    healthy: () => health.reason,
    log,
  });
  return { time, events, lines, health, feeder, watchdog };
}

describe('watchdogTimeoutMs', () => {
  it('stays whole seconds and at least 1 s under the board maximum', () => {
    expect(watchdogTimeoutMs(8388)).toBe(7000);
    expect(watchdogTimeoutMs(16777)).toBe(15000);
    expect(watchdogTimeoutMs(9000)).toBe(8000);
    expect(watchdogTimeoutMs(2000)).toBe(1000);
  });

  it('uses 90 % of a maximum under 2 s and never returns less than 1', () => {
    expect(watchdogTimeoutMs(1999)).toBe(1799);
    expect(watchdogTimeoutMs(500)).toBe(450);
    expect(watchdogTimeoutMs(1)).toBe(1);
  });
});

describe('watchdog feeder', () => {
  it('does nothing before start', () => {
    const { time, events } = setup();
    time.advanceSync(20000);
    expect(events).toEqual([]);
    expect(time.pending()).toBe(0);
  });

  it('starts the hardware watchdog at the timeout and feeds every quarter of it while healthy', () => {
    const { time, events, lines, feeder } = setup(8000);
    feeder.start();
    time.advanceSync(8000);
    expect(events).toEqual(['0 start 8000', '2000 feed', '4000 feed', '6000 feed', '8000 feed']);
    expect(lines).toEqual([]);
    expect(feeder.starving()).toBeUndefined();
    expect(time.pending()).toBe(1);
  });

  it('stops feeding once healthy() gives a reason, logs it once, and stays stopped', () => {
    const { time, events, lines, health, feeder } = setup(8000);
    feeder.start();
    time.advanceSync(4500);
    health.reason = 'uplink stuck for 600 s';
    time.advanceSync(20000);
    expect(events).toEqual(['0 start 8000', '2000 feed', '4000 feed']);
    expect(lines).toEqual(['error watchdog: not feeding (uplink stuck for 600 s); the board resets within 6000 ms']);
    expect(feeder.starving()).toBe('uplink stuck for 600 s');
    expect(time.pending()).toBe(0);
  });

  it('does not resume feeding when healthy() recovers', () => {
    const { time, events, health, feeder } = setup(4000);
    feeder.start();
    health.reason = 'sampler silent';
    time.advanceSync(1000);
    health.reason = undefined;
    time.advanceSync(10000);
    expect(events).toEqual(['0 start 4000']);
    expect(feeder.starving()).toBe('sampler silent');
  });

  it('treats a throwing health check as unhealthy', () => {
    const time = createFakeTime();
    const events: string[] = [];
    const lines: string[] = [];
    const feeder = createWatchdogFeeder({
      watchdog: { start: (ms) => events.push('start ' + ms), feed: () => events.push('feed'), keepAlive: () => events.push('keepAlive') },
      timers: time.timers,
      clock: time.clock,
      timeoutMs: 8000,
      healthy: () => {
        throw new Error('boom');
      },
      log: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
    });
    feeder.start();
    time.advanceSync(10000);
    expect(events).toEqual(['start 8000']);
    expect(feeder.starving()).toBe('health check threw: boom');
    expect(lines).toEqual(['watchdog: not feeding (health check threw: boom); the board resets within 6000 ms']);
  });

  it('keeps feeding after a throwing feed and logs the failure once', () => {
    const { time, events, lines, feeder, watchdog } = setup(4000);
    let fails = 2;
    const realFeed = watchdog.feed.bind(watchdog);
    watchdog.feed = () => {
      if (fails > 0) {
        fails--;
        throw new Error('bus');
      }
      realFeed();
    };
    feeder.start();
    time.advanceSync(4000);
    expect(events).toEqual(['0 start 4000', '3000 feed', '4000 feed']);
    expect(lines).toEqual(['error watchdog: feed failed: bus']);
  });

  it('start twice programs the hardware once', () => {
    const { time, events, feeder } = setup(8000);
    feeder.start();
    feeder.start();
    time.advanceSync(2000);
    expect(events).toEqual(['0 start 8000', '2000 feed']);
    expect(time.pending()).toBe(1);
  });

  it('stop halts the feeding timer and nothing is fed afterwards', () => {
    const { time, events, lines, feeder } = setup(8000);
    feeder.start();
    time.advanceSync(2000);
    feeder.stop();
    feeder.stop();
    expect(time.pending()).toBe(0);
    time.advanceSync(20000);
    expect(events).toEqual(['0 start 8000', '2000 feed']);
    expect(lines).toEqual([]);
    expect(feeder.starving()).toBeUndefined();
  });

  it('start after starving reprograms the hardware and feeds again', () => {
    const { time, events, health, feeder } = setup(8000);
    feeder.start();
    health.reason = 'x';
    time.advanceSync(2000);
    health.reason = undefined;
    feeder.start();
    expect(feeder.starving()).toBeUndefined();
    time.advanceSync(2000);
    expect(events).toEqual(['0 start 8000', '2000 start 8000', '4000 feed']);
  });
});
