// The configuration's device (remote.id): its stored document is the
// configuration this board is to run. Read every remote.pollMs as a job of
// the uplink (readings first, the same heap check, ladder and backoff). Only
// this stays loaded while the agent runs: a read's code is the cold module
// 'remote-read' (src/agent/remote-read.ts), loaded for each read and let go;
// what a new document does is 'remote-apply' (src/agent/remote-apply.ts),
// loaded only for one, and the checker only when it changes something.
import type { AgentConfig } from '../config/types';
import type { Platform, TimerId } from '../ports/ports';
import type { Runtime } from '../runtime';
import type { ServiceClient } from '../service/client';
import type { LoadCold } from './outputs';
import { R } from './remote-state';
import type { Job, Uplink, WriteOutcome } from './uplink';

/** What a read and an apply reach of the running board. */
export type RemoteRt = Pick<Runtime, 'p' | 'config' | 'apply' | 'restart'>;

/** The running poll, as the uplink and a read (src/agent/remote-apply.ts) see it. */
export interface RemoteJob extends Job {
  /** Takes the job out of the uplink and stops its timer. */
  stop(): void;
  /** Stopped: a read that returns after stop() changes nothing. */
  off?: boolean;
  /** What the last read of this boot settled (a document's CRC, or why the device could not be read): the same again needs no flash. */
  seen?: string;
  /** The last failed load, without its figures in brackets: logged once. */
  error?: string;
}

/** One read of the configuration's device through the running poll `x`'s client (the cold module 'remote-read'). */
export type ReadRemote = (rt: RemoteRt, load: LoadCold, x: RemoteJob, client: Pick<ServiceClient, 'call'>) => Promise<WriteOutcome>;

/**
 * What a new document does (the cold module 'remote-apply'): with the
 * running poll `x`, the document `text` a read found (and its reply's
 * Date); without it, the document a restart kept for this boot without the
 * agent (src/runtime.ts), checked at once: a valid change is handed back for
 * the boot to save (with rt.apply()) once this module is let go, and the
 * kept document removed after that.
 */
export type ApplyRemote = (rt: RemoteRt, load: LoadCold, x?: RemoteJob, text?: string, date?: string) => AgentConfig | undefined;

// Every function here stays on the heap while the agent runs: four in all.

/** Starts the poll of `config`'s remote.id as a job of the uplink `up`. */
export function startRemote(up: Pick<Uplink, 'add' | 'remove' | 'wake'>, client: Pick<ServiceClient, 'call'>, config: Pick<AgentConfig, 'remote'>, p: Pick<Platform, 'timers' | 'files' | 'log'>, load: LoadCold, rt: RemoteRt): RemoteJob {
  let timer: TimerId | undefined;
  // Not cleared from its own callback: Kaluma 1.2.1's clearTimeout() breaks the loop there.
  const due = (): void => {
    timer = undefined;
    x.due = true;
    up.wake();
  };
  const x: RemoteJob = {
    // After an apply, or a restart to check a document, the first read waits
    // a whole period: a document that changes all the time restarts the
    // board at most once a period.
    due: p.files.size(R.Wait) === undefined,
    run() {
      x.due = false;
      if (timer !== undefined) p.timers.clearTimeout(timer);
      timer = p.timers.setTimeout(due, config.remote.pollMs);
      const m = load<ReadRemote>('remote-read');
      if (m.ok) return m.value(rt, load, x, client);
      // Not loaded (the heap is short): read at the next period. Logged once
      // a reason, without the figures in brackets (the free heap changes).
      const e = m.error.split(' (')[0];
      if (e !== x.error) p.log.error('remote: ' + m.error);
      x.error = e;
      return Promise.resolve<WriteOutcome>({ kind: 'reject', reason: m.error, bytesSent: 0 });
    },
    stop() {
      up.remove(x);
      x.off = true;
      if (timer !== undefined) p.timers.clearTimeout(timer);
      timer = undefined;
    },
  };
  if (!x.due) timer = p.timers.setTimeout(due, config.remote.pollMs);
  up.add(x);
  return x;
}
