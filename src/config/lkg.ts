// When to fall back to the last known good configuration: a change that has
// delivered nothing for revertAfterMs is presumed to have cut the board off
// (wrong Wi-Fi, URL or key), and reverting is the only way back without a
// person at the console. Pure: the caller passes the time in.

export interface LkgWatch {
  /** The running config was changed at `atMs` (uptime). */
  configChanged(atMs: number): void;
  /** Something was delivered with the running config at `atMs`. */
  delivered(atMs: number): void;
  shouldRevert(nowMs: number): boolean;
}

/**
 * The rule itself, for a caller that keeps `changedAt` (the uptime of the
 * change still waiting for its first delivery, undefined once proven or never
 * changed) on its own: the runtime does, instead of a watch object and its
 * three closures for as long as it runs.
 */
export function revertDue(changedAt: number | undefined, revertAfterMs: number, nowMs: number): boolean {
  return revertAfterMs > 0 && changedAt !== undefined && nowMs - changedAt >= revertAfterMs;
}

export function createLkgWatch(o: { revertAfterMs: number }): LkgWatch {
  // Uptime of the change still waiting for its first delivery; undefined once proven (or never changed).
  let changedAt: number | undefined;
  return {
    configChanged(atMs) {
      changedAt = atMs;
    },
    delivered(atMs) {
      if (changedAt !== undefined && atMs >= changedAt) changedAt = undefined;
    },
    shouldRevert(nowMs) {
      return revertDue(changedAt, o.revertAfterMs, nowMs);
    },
  };
}
