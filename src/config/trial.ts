// A changed configuration on trial (the rule: src/config/lkg.ts): from the
// save until its first delivery, the change is presumed to have cut the
// board off; the first delivery proves it and it becomes the last known good
// one, and a change that delivers nothing for agent.lkgRevertMs is replaced
// by the last known good one. A flag file keeps the trial across a restart
// (a change restarts the board) and a power cut, when the RAM is lost: the
// next boot starts the rule's clock again.
import type { Platform } from '../ports/ports';
import { revertDue } from './lkg';
import type { ConfigStore } from './store';
import type { AgentConfig } from './types';

/** On flash while the saved configuration is a change that has not delivered yet (the build puts the name in place). */
export const TRIAL_FILE = 'config.new';

export interface ConfigTrial {
  /** A change was saved and runs from now: on trial, with its flag on flash. */
  start(): void;
  /**
   * Every supervisor tick, on the running `config`, with the uptime of its
   * last delivery since the previous tick (undefined: none). A delivery
   * proves it: saved as the last known good one here, not in the delivery's
   * callback, on top of its request's heap. Returns the last known good
   * configuration (on flash again) when a change delivered nothing for long
   * enough, to run instead.
   */
  check(config: AgentConfig, nowMs: number, deliveredAt: number | undefined): AgentConfig | undefined;
}

/**
 * `flagged`: the boot found the flag; `onTrial`: the boot's decision that
 * the saved configuration is a change still on trial (src/boot/decide.ts),
 * its clock starting at this boot. A flag that is not on trial goes.
 */
export function createTrial(o: { p: Platform; store: ConfigStore; flagged: boolean; onTrial: boolean }): ConfigTrial {
  const { p, store } = o;
  const files = p.files;
  const log = p.log;
  // The uptime of a change still waiting for its first delivery; undefined
  // once proven or never changed. Always the running config's change, so its
  // lkgRevertMs is the one that counts.
  let changedAt = o.onTrial ? 0 : undefined;
  // The flag is on flash. Proven or gone, it goes (a failure only means one more wait for a delivery at the next boot).
  // (Removed in two places, not by a function: each costs heap for good.)
  let flagged = o.flagged;
  if (flagged && !o.onTrial) {
    flagged = false;
    try {
      files.remove(TRIAL_FILE);
    } catch (e) {
      log.error('config: ' + String(e));
    }
  }
  const trial: ConfigTrial = {
    start() {
      changedAt = p.clock.uptimeMs();
      try {
        files.write(TRIAL_FILE, new Uint8Array([49]));
        flagged = true;
      } catch (e) {
        // The rule still holds for this boot.
        log.error('config: ' + String(e));
      }
    },
    check(config, now, deliveredAt) {
      let done = false;
      // Only a delivery since the change proves it.
      if (deliveredAt !== undefined && (changedAt === undefined || deliveredAt >= changedAt)) {
        changedAt = undefined;
        const e = store.saveLastKnownGood(config);
        if (e) log.error('config: ' + e);
        else done = true;
      }
      const good = revertDue(changedAt, config.agent.lkgRevertMs, now) ? store.loadLastKnownGood() : undefined;
      if (good) {
        log.error('config: the changed configuration delivered nothing for ' + Math.round(config.agent.lkgRevertMs / 60000) + ' min; going back to the last known good one');
        changedAt = undefined;
        done = true;
      }
      if (done && flagged) {
        flagged = false;
        try {
          files.remove(TRIAL_FILE);
        } catch (x) {
          log.error('config: ' + String(x));
        }
      }
      return good;
    },
  };
  return trial;
}
