// The boot's decision: what the boot found (the saved configuration as
// loaded, the flags on flash, the boot counter's safe mode) -> the mode it
// starts in (the agent starts in 'running'), the reason a person reads, and
// whether a change is on trial. Pure: the
// boot reads, this decides, the boot acts (src/runtime.ts). Only the boot
// calls it: the device's entry hands it to the boot as an argument
// (src/main.ts), so its code goes with the boot's.
import { isConfigured } from '../config/defaults';
import type { AgentConfig } from '../config/types';

export type Mode = 'running' | 'console-only' | 'safe';

export interface BootFacts {
  /** The saved configuration as loaded (the defaults when there is none or it is invalid). */
  config: AgentConfig;
  /** What is wrong with the saved file; none when it loaded or there is none. */
  errors: number;
  /** The saved file was written by flash.sh and this program has not checked it yet. */
  unchecked: boolean;
  /** A whole maintenance flag was on flash (maintenance() before the restart). */
  maintenance: boolean;
  /** Safe mode's reason (rapid reboots); undefined outside safe mode. */
  safe: string | undefined;
  /** The flag of a change that had not delivered when the board went down (src/config/trial.ts). */
  flagged: boolean;
  /** A document of the configuration's device waits on flash for a boot without the agent to check it (src/agent/remote-apply.ts). */
  remote?: boolean;
}

export interface BootPlan {
  mode: Mode;
  /** Why the agent does not run ('' when it is to run). */
  why: string;
  /** Check the saved file (and a waiting document of the configuration's device) once the boot is done (the agent starts after the restart that follows). */
  check: boolean;
  /** The configuration is a change on trial: the last-known-good rule counts from this boot's start. */
  onTrial: boolean;
}

export function decideBoot(f: BootFacts): BootPlan {
  const missing = f.unchecked || f.errors ? [] : isConfigured(f.config);
  // The first that holds says why the agent does not start.
  const why = f.maintenance
    ? 'maintenance boot: agent and watchdog off until the next reboot; flash or copy files now'
    : f.safe !== undefined
      ? f.safe
      : f.unchecked
        ? 'checking the saved configuration; the agent starts after a restart'
        : f.errors
          ? 'saved configuration invalid (see the errors above); fix with set() and save()'
          : f.remote
            ? 'checking a configuration from the service; the agent starts after a restart'
            : missing.length
              ? 'not configured: set ' + missing.join(', ')
              : '';
  const mode = f.safe !== undefined && !f.maintenance ? 'safe' : why ? 'console-only' : 'running';
  // A file nobody checked yet was written by flash.sh: a person's choice, not
  // a change on trial; unless a document of the configuration's device is
  // still being applied (a power cut fell between the save's two files).
  return { mode, why, check: f.unchecked || (!!f.remote && !f.errors), onTrial: f.flagged && (!f.unchecked || !!f.remote) };
}
