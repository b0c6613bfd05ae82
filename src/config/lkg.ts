// When to fall back to the last known good configuration: a change that has
// delivered nothing for revertAfterMs is presumed to have cut the board off
// (wrong Wi-Fi, URL or key), and reverting is the only way back without a
// person at the console. Pure: the caller passes the time in.

/**
 * The rule. The caller keeps `changedAt`: the uptime of the change still
 * waiting for its first delivery, undefined once a delivery proved it (or
 * when nothing changed). The runtime keeps that one number instead of a
 * watch object and its closures for as long as it runs.
 */
export function revertDue(changedAt: number | undefined, revertAfterMs: number, nowMs: number): boolean {
  return revertAfterMs > 0 && changedAt !== undefined && nowMs - changedAt >= revertAfterMs;
}
