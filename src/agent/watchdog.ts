// Feeds the hardware watchdog only while the agent says it is healthy, from a
// timer, so a wedged agent or a stuck loop is recovered by a reset: the outbox
// is on flash, and the boot state turns a crash loop into safe mode.
import type { Clock, Log, TimerId, Timers, Watchdog } from '../ports/ports';

export interface WatchdogFeeder {
  /** Starts the hardware watchdog and the feeding timer. */
  start(): void;
  /**
   * Stops the feeding timer only. The hardware watchdog cannot be stopped, so
   * on the board this leads to a reset within the timeout: it is meant for
   * tests and for an orderly shutdown on the host.
   */
  stop(): void;
  /** Why feeding stopped, or undefined while feeding. */
  starving(): string | undefined;
}

/**
 * A timeout safely below the board's maximum (the SDK clamps longer ones
 * silently): whole seconds, at least 1 s under it; below a 2 s maximum, 90 %.
 */
export function watchdogTimeoutMs(boardMaxMs: number): number {
  const whole = Math.floor((boardMaxMs - 1000) / 1000) * 1000;
  if (whole >= 1000) return whole;
  return Math.max(1, Math.floor(boardMaxMs * 0.9));
}

export function createWatchdogFeeder(o: {
  watchdog: Watchdog;
  timers: Timers;
  clock: Clock;
  timeoutMs: number;
  /** undefined = healthy, else the reason the board should be reset. */
  healthy: () => string | undefined;
  log: Log;
}): WatchdogFeeder {
  // Four feeds per timeout: a late timer still feeds in time.
  const periodMs = Math.max(1, Math.floor(o.timeoutMs / 4));
  let timer: TimerId | undefined;
  let reason: string | undefined;
  let lastFedMs = 0;
  let feedFailed = false;

  function tick(): void {
    timer = undefined;
    let why: string | undefined;
    try {
      why = o.healthy();
    } catch (e) {
      // A broken health check is a bug we cannot vouch past: reset.
      why = 'health check threw: ' + (e instanceof Error ? e.message : String(e));
    }
    if (why !== undefined) {
      // Latched: a flickering check must not keep a sick agent alive.
      reason = why;
      const left = Math.max(0, o.timeoutMs - (o.clock.uptimeMs() - lastFedMs));
      o.log.error('watchdog: not feeding (' + why + '); the board resets within ' + left + ' ms');
      return;
    }
    try {
      o.watchdog.feed();
      lastFedMs = o.clock.uptimeMs();
      feedFailed = false;
    } catch (e) {
      // Logged once per run of failures; feeding goes on.
      if (!feedFailed) o.log.error('watchdog: feed failed: ' + (e instanceof Error ? e.message : String(e)));
      feedFailed = true;
    }
    timer = o.timers.setTimeout(tick, periodMs);
  }

  return {
    start(): void {
      if (timer !== undefined) return;
      reason = undefined;
      o.watchdog.start(o.timeoutMs);
      lastFedMs = o.clock.uptimeMs();
      timer = o.timers.setTimeout(tick, periodMs);
    },
    stop(): void {
      if (timer !== undefined) o.timers.clearTimeout(timer);
      timer = undefined;
    },
    starving(): string | undefined {
      return reason;
    },
  };
}
