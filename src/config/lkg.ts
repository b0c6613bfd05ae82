// A change that delivered nothing for revertAfterMs presumably cut the board
// off (wrong Wi-Fi, URL or key): reverting is the only way back without a
// person at the console.

/**
 * `changedAt`: the uptime of the change still waiting for its first
 * delivery, undefined once one proved it. One number, not a watch object.
 */
export function revertDue(changedAt: number | undefined, revertAfterMs: number, nowMs: number): boolean {
  return revertAfterMs > 0 && changedAt !== undefined && nowMs - changedAt >= revertAfterMs;
}
