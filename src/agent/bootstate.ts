// Boot counter, last known state and safe mode. Kaluma has no reset reason,
// so a crash loop is recognised from our own record: a boot that never reached
// markHealthy() counts as rapid, and enough in a row give safe mode.
//
// state.json = {"boot":7,"rapid":0,"healthy":true,"state":"uplink: idle"},
// plus "asked":true when this boot ends in a restart someone asked for (the
// next boot is then not rapid). Written to a .tmp file and renamed, so a power
// cut leaves the old or the new record. Flash wear: keep record() to state
// changes that happen a few times an hour at most.
import type { FileStore, Log } from '../ports/ports';
import { decodeUtf8 } from '../utf8';

export interface BootState {
  /** Increments every boot, starting at 1. */
  bootId: number;
  /** Consecutive boots that ended before being marked healthy. */
  rapidBoots: number;
  /** Decided at open; only leaveSafeMode() clears it. */
  safeMode: boolean;
  /** Why safe mode, '' otherwise. */
  reason: string;
  /** The state recorded by the previous boot, e.g. 'uplink: sending'; on the first boot, that it is the first. */
  lastState: string;
  /** The previous boot ended as asked (or there was none); else a crash, a watchdog reset or a power cut. */
  lastAsked: boolean;
  /** The agent ran long enough (the caller decides how long): rapidBoots back to 0, persisted once. */
  markHealthy(): void;
  /** Remembers what we are doing; written only when it changed. Call rarely (flash wear, above). */
  record(state: string): void;
  /** The operator's resume(): safe mode off, rapid counter cleared, persisted. */
  leaveSafeMode(): void;
  /** The next boot is one someone asked for, so not rapid; persisted at once, before the restart. */
  restartAsked(why: string): void;
}

// A const enum is inlined by the build; a module-level const stays on the heap.
const enum K {
  StateFile = 'state.json',
  TmpFile = 'state.json.tmp',
  /** Keeps the file and its copy in RAM small whatever the caller passes. */
  MaxStateChars = 80,
  /** lastState of a boot with no record before it: a new board, or its flash wiped. */
  FirstBoot = 'first boot: no earlier boot state on flash',
}
export const STATE_FILE: string = K.StateFile;

interface Saved {
  boot: number;
  rapid: number;
  healthy: boolean;
  state: string;
  asked?: boolean;
}

export function openBootState(o: { files: FileStore; safeModeBoots: number; log?: Log }): BootState {
  const log = o.log;
  // Read in place (a helper function would stay on the heap): `bad` says why it is unusable.
  let bytes: Uint8Array | undefined;
  let bad: string | undefined;
  try {
    bytes = o.files.read(K.StateFile);
  } catch (e) {
    bad = 'unreadable (' + (e instanceof Error ? e.message : String(e)) + ')';
  }
  const text = bytes && decodeUtf8(bytes);
  let prev: Partial<Saved> | null | undefined;
  if (bytes && text === undefined) bad = 'corrupt (not UTF-8)';
  else if (text !== undefined) {
    try {
      prev = JSON.parse(text) as Partial<Saved> | null;
    } catch {
      bad = 'corrupt (not JSON)';
    }
  }
  const count = (v: unknown): boolean => typeof v === 'number' && v >= 0 && Math.floor(v) === v && v < 1e15;
  if (bad === undefined && text !== undefined && (prev === null || typeof prev !== 'object' || !count(prev.boot) || !count(prev.rapid) || typeof prev.healthy !== 'boolean' || typeof prev.state !== 'string')) {
    bad = 'corrupt (bad fields)';
  }
  let bootId = 1;
  let rapid = 0;
  let lastState = '';
  let lastAsked = false;
  if (bad === undefined && prev) {
    const r = prev as Saved;
    bootId = r.boot + 1;
    // A restart someone asked for neither counts nor clears the count.
    rapid = r.healthy ? 0 : r.asked === true ? r.rapid : r.rapid + 1;
    lastState = r.state;
    lastAsked = r.asked === true;
  } else {
    if (bad === undefined) {
      // No earlier boot ended, so none ended unasked.
      lastState = K.FirstBoot;
      lastAsked = true;
    }
    if (log) {
      if (bad === undefined) log.info('boot state: no ' + K.StateFile + ', starting fresh');
      else log.error('boot state: ' + K.StateFile + ' ' + bad + ', starting fresh');
    }
  }

  const cur: Saved = { boot: bootId, rapid, healthy: false, state: 'booting' };

  function persist(): void {
    try {
      o.files.write(K.TmpFile, new TextEncoder().encode(JSON.stringify(cur)));
      o.files.rename(K.TmpFile, K.StateFile);
    } catch (e) {
      // Flash trouble must not stop the agent: only the memory across boots is lost.
      if (log) log.error('boot state: could not save ' + K.StateFile + ': ' + (e instanceof Error ? e.message : String(e)));
    }
  }

  // Before anything else can crash: this boot must count even if it dies next.
  persist();

  const safe = o.safeModeBoots > 0 && rapid >= o.safeModeBoots;
  const bs: BootState = {
    bootId,
    rapidBoots: rapid,
    safeMode: safe,
    reason: safe
      ? rapid + ' reboots in a row before the agent was marked healthy; last state: ' + (lastState || 'unknown')
      : '',
    lastState,
    lastAsked,
    markHealthy(): void {
      bs.rapidBoots = 0;
      if (cur.healthy) return;
      cur.healthy = true;
      cur.rapid = 0;
      persist();
    },
    record(state: string): void {
      const s = state.length > (K.MaxStateChars as number) ? state.slice(0, K.MaxStateChars) : state;
      if (s === cur.state) return;
      cur.state = s;
      persist();
    },
    leaveSafeMode(): void {
      bs.safeMode = false;
      bs.reason = '';
      bs.rapidBoots = 0;
      // healthy stays as it is: if this boot still dies early, the next one
      // counts 1, so a broken build finds its way back into safe mode.
      if (cur.rapid === 0) return;
      cur.rapid = 0;
      persist();
    },
    restartAsked(why: string): void {
      if (cur.asked && cur.state === why) return;
      cur.asked = true;
      cur.state = why.length > (K.MaxStateChars as number) ? why.slice(0, K.MaxStateChars) : why;
      persist();
    },
  };
  return bs;
}
