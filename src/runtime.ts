// The boot, in order: config (flash) -> boot counter / safe mode -> flags ->
// the decision (src/boot/decide.ts) -> LED -> the agent and its supervisor
// (src/agent/supervisor.ts), a change of config on trial (src/config/trial.ts);
// then the running board's lifecycle. It never throws: with no config, an
// invalid one or after rapid reboots it stays console-only and says why.
import type { Agent } from './agent/agent';
import { openBootState } from './agent/bootstate';
import type { BootState } from './agent/bootstate';
import { createLed } from './agent/led';
import type { Led } from './agent/led';
import type { LoadCold, Outputs } from './agent/outputs';
import type { ColdResult } from './cold';
import { createSupervisor } from './agent/supervisor';
import type { Delivery } from './agent/uplink';
import { decideBoot } from './boot/decide';
import type { Mode } from './boot/decide';
import { createConfigStore } from './config/store';
import type { CodecSource, ConfigStore } from './config/store';
import { TRIAL_FILE, createTrial } from './config/trial';
import type { AgentConfig } from './config/types';
import type { Platform } from './ports/ports';
import type { Outbox } from './queue/types';
import { VERSION } from './version';
import { agentPart, spent } from './parts';

export type { Mode } from './boot/decide';

// Put in place by the build: a module-level const would be a binding on the heap for good.
const enum K {
  /** HEALTHY_AFTER_MS, below. */
  HealthyAfterMs = 120000,
  /** Present for one boot: start without the agent and the watchdog, so flashing is not cut short by a reset (written by maintenance(), src/console/cmd-config.ts). */
  MaintenanceFile = 'maintenance',
  /** A document of the configuration's device kept for a boot without the agent to check (src/agent/remote-apply.ts). */
  RemoteFile = 'remote.json',
}

/** A boot that lives this long is healthy: the rapid-reboot counter starts again. */
export const HEALTHY_AFTER_MS: number = K.HealthyAfterMs;

/**
 * The running board: every part of it the console, the health report and
 * the host reach. Each of them names the few members it uses (e.g.
 * src/console/shared.ts); this object has them all.
 */
export interface Runtime {
  readonly p: Platform;
  /** The outbox, opened with the agent's first start (its code is the agent's: src/parts.ts); undefined before. */
  queue(): Outbox | undefined;
  readonly state: BootState;
  readonly store: ConfigStore;
  mode(): Mode;
  /** Why the agent is not running ('' when it is). */
  why(): string;
  config(): AgentConfig;
  /** The configuration with the console's unsaved changes (the running one when there are none): data only, the editor is cold code. */
  pending(): AgentConfig;
  /** Keeps the console's changes; undefined drops them (nothing is saved or restarted). */
  setPending(c: AgentConfig | undefined): void;
  /** True while unsaved changes exist. */
  dirty(): boolean;
  /** The console's last error line, for status(). */
  consoleError: string;
  agent(): Agent | undefined;
  /** The running agent's outputs (src/agent/outputs.ts), once started; undefined without any. */
  outputs(): Outputs | undefined;
  /** Saves `next` and restarts into it: the board on the device (the agent's maker is gone), the agent in place on the host. An error line, or undefined. */
  apply(next: AgentConfig): string | undefined;
  /** Leaves safe mode and starts the agent if the config allows. */
  resume(): void;
  /** A restart someone asked for (reboot(), an orderly restart): the next boot does not count toward safe mode. */
  restart(why: string): void;
  stop(): void;
}

export interface RuntimeHooks {
  onDelivered?: (d: Delivery) => void;
  /** The config checker (cold code on the board: the cold module 'check'), asked for only when a saved file has not been checked yet or a change is saved. */
  codec?: CodecSource;
  /** The checker's id (src/config/store.ts): a file checked by another checker is checked again. */
  checker?: string;
  /** Loads cold code by name (the cold loader's load()): 'health' makes each health report (src/agent/health.ts), 'outputs' starts the outputs (src/agent/outputs.ts), which load 'output-read' for each read; 'remote' polls the configuration's device (src/agent/remote.ts), which loads 'remote-apply' for each read, as a boot that checks a kept document does; the uplink loads 'held' for the held devices' lanes. */
  load?: LoadCold;
}

/** bootWith() with the config store's and the boot state's own makers and the boot's decision: the host and the tests. */
export function boot(p: Platform, hooks: RuntimeHooks = {}): Runtime {
  return bootWith(createConfigStore, openBootState, decideBoot, createTrial, createSupervisor, createLed, p, hooks);
}

/**
 * The boot, with the makers and the decision only it calls handed in: the
 * device's entry names them only at its top level (src/main.ts), so their
 * code goes with the boot's; named from inside any function, each would be
 * kept for good (the store's load(), which only the boot calls, is let go below).
 */
export function bootWith(makeStore: typeof createConfigStore, openState: typeof openBootState, decide: typeof decideBoot, makeTrial: typeof createTrial, makeSup: typeof createSupervisor, makeLed: typeof createLed, p: Platform, hooks: RuntimeHooks = {}): Runtime {
  const log = p.log;
  // After `.load` the previous program's watchdog may still run (Kaluma never disables it on a
  // soft reset): kept quiet from the first line, between the boot's slow steps, then by the supervisor.
  p.watchdog.keepAlive();
  try {
    p.system.seedRandom();
  } catch {
    /* Math.random stays usable, only less random */
  }
  const store = makeStore({ files: p.files, log, codec: hooks.codec || (() => 'no config checker in this program'), checker: hooks.checker || 'dev' });
  const loaded = store.load();
  let config = loaded.config;
  // No config: the agent cannot run on this boot, so its code goes now, not at the end of the
  // boot (this frees it only where the boot runs after the program's top level: src/main.ts).
  if (loaded.source === 'defaults' && !loaded.unchecked) agentPart(true);
  const state = openState({ files: p.files, safeModeBoots: config.agent.safeModeBoots, log });
  log.info('pico-data-agent ' + VERSION + ' on ' + p.system.boardName() + ' ' + p.system.boardUid() + ', boot ' + state.bootId);
  p.watchdog.keepAlive();
  let led: Led | undefined;
  try {
    led = makeLed({ out: p.pins.led(), timers: p.timers });
  } catch (e) {
    log.error('led: ' + String(e));
  }
  if (loaded.errors.length) log.error('config: the saved configuration is invalid (' + loaded.errors.length + ' errors above); starting with the console only');

  // A flag on flash; `drop`: it counts for this boot only. (Not a module function: one named in a function is kept.)
  const read = (name: string, drop?: boolean): Uint8Array | undefined => {
    try {
      const f = p.files.read(name);
      if (f && drop) p.files.remove(name);
      return f;
    } catch {
      return undefined;
    }
  };
  const m = read(K.MaintenanceFile, true);
  // Only a whole maintenance flag counts; a torn write from a failed maintenance() does not.
  let maintenance = !!m && m.length === 1 && m[0] === 49;
  const flagged = !!read(TRIAL_FILE);
  const remote = !!read(K.RemoteFile);
  const plan = decide({ config, errors: loaded.errors.length, unchecked: !!loaded.unchecked, maintenance, safe: state.safeMode ? state.reason : undefined, flagged, remote });
  let mode = plan.mode;
  let why = plan.why;
  let pending: AgentConfig | undefined;
  const trial = makeTrial({ p, store, flagged, onTrial: plan.onTrial });

  /** Starts the agent on the running config, or on `next` (the last known good one), which drops the console's changes. */
  function startAgent(next?: AgentConfig): void {
    if (next) {
      config = next;
      pending = undefined;
    }
    why = sup.start(config);
    mode = why ? 'console-only' : 'running';
  }

  const rt: Runtime = {
    p,
    queue: () => sup.queue,
    state,
    store,
    mode: () => mode,
    why: () => why,
    config: () => config,
    pending: () => pending || config,
    setPending: (c) => {
      pending = c;
    },
    dirty: () => pending !== undefined,
    consoleError: '',
    agent: () => sup.agent,
    outputs: () => sup.outputs,
    apply(next) {
      const e = store.save(next);
      if (e) return e;
      config = next;
      pending = undefined;
      trial.start();
      // Safe mode and a maintenance boot keep the agent (and its watchdog) off
      // until resume() or the next reboot.
      if (mode !== 'safe' && !maintenance) startAgent();
      return undefined;
    },
    resume() {
      maintenance = false;
      state.leaveSafeMode();
      if (mode === 'safe') mode = 'console-only';
      startAgent();
    },
    restart(why) {
      state.restartAsked(why);
      rt.stop();
      p.system.reboot();
    },
    stop: () => sup.stop(true),
  };
  const sup = makeSup({ p, led, trial, bootId: state.bootId, rt, load: hooks.load, onDelivered: hooks.onDelivered, revert: startAgent });

  // A boot that lived this long was not a crash loop, whatever mode it is in.
  // (markHealthy uses no `this`, src/agent/bootstate.ts: no closure around it.)
  // eslint-disable-next-line @typescript-eslint/unbound-method
  p.timers.setTimeout(state.markHealthy, K.HealthyAfterMs);
  // What ends a maintenance boot is the flashing (`.load`) or a reset by hand: not a crash.
  if (maintenance) state.restartAsked('maintenance boot');
  if (led && mode !== 'running') led.show(mode === 'safe' ? 'safe' : 'off');
  if (mode === 'running') {
    startAgent();
    // Not for a boot that stays console-only: the next boot would read 'running', for a flash write.
    if (mode === 'running') state.record('running');
  }
  // The store's load() runs once a boot, twice for the first boot after a new
  // config was flashed: the checker was not to be loaded during the boot
  // (src/main.ts). It runs once the boot is done, with the agent's code let
  // go (below); a complete config then restarts the board into the agent.
  if (plan.check) {
    p.timers.setTimeout(() => {
      const again = store.load();
      spent(store, ['load']);
      if (again.source === 'file') config = again.config;
      if (mode === 'safe' || maintenance) return;
      // A document the running agent had no room to check: checked here, a
      // change saved (on trial) once the check's code is let go, then the
      // agent starts. It goes once done, or when it cannot be checked at all.
      if (remote && again.source === 'file' && hooks.load) {
        let m: ColdResult<(r: Runtime, l: LoadCold) => AgentConfig | undefined> | undefined = hooks.load('remote-apply');
        const next = m.ok ? m.value(rt, hooks.load) : log.error('remote: ' + m.error);
        m = undefined;
        const e = next && rt.apply(next);
        if (e) log.error('remote: ' + e);
        read(K.RemoteFile, true);
      }
      // On the device the agent's code is gone by now: this schedules the
      // restart into it. Where the code stays (the host), the agent starts.
      if (again.source === 'file') startAgent();
      else why = 'saved configuration invalid (see the errors above); fix with set() and save()';
      if (mode === 'running') state.record('running');
      else log.info('agent: console only: ' + why);
    }, 0);
  } else spent(store, ['load']);
  if (mode !== 'running') {
    // The agent's code is not needed before a save or resume(), and those
    // restart the board: its heap goes to the console (src/parts.ts).
    agentPart(true);
    log.info('agent: ' + (mode === 'safe' ? 'SAFE MODE: ' : 'console only: ') + why);
    log.info(mode === 'safe' ? 'type resume() to start the agent, or fix the config first (config(), set(), save())' : "type help() for the commands, e.g. set('wifi.ssid', 'my-net')");
  }
  return rt;
}
