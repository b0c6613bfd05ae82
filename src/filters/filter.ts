// A filter is a pure step between a sensor and the outbox: no I/O, no timers.
// Time comes in with each value, so heartbeat and throttle need no clock.

export interface Filter {
  /** The value to pass on, or undefined to drop it. atMs is the monotonic sample time. */
  push(value: number, atMs: number): number | undefined;
}
