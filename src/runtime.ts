// The boot sequence, in order, and the running agent's lifecycle:
//   config (flash) -> boot counter / safe mode -> console commands -> LED ->
//   outbox (with the agent) -> agent -> watchdog -> supervisor.
// It never throws: with no config, an invalid one or after rapid reboots it
// stays in console-only mode and says what to do.
import type { Agent } from './agent/agent';
import type { AgentPart } from './agent/part';
import { openBootState } from './agent/bootstate';
import type { BootState } from './agent/bootstate';
import { createLed } from './agent/led';
import type { Led } from './agent/led';
import type { LoadCold, Outputs, startOutputs as StartOutputs } from './agent/outputs';
import type { Delivery } from './agent/uplink';
import type { WatchdogFeeder } from './agent/watchdog';
import { getBoard } from './board';
import { revertDue } from './config/lkg';
import { createConfigStore } from './config/store';
import type { CodecSource, ConfigStore } from './config/store';
import type { AgentConfig } from './config/types';
import { isConfigured } from './config/defaults';
import type { Platform, TimerId } from './ports/ports';
import type { Outbox } from './queue/types';
import { OUTBOX_DIR } from './queue/dir';
import { VERSION } from './version';
import { agentPart, spent } from './parts';

// Constants are a const enum, put in place by the build: a module-level
// const would be a binding on the heap for good.
const enum K {
  /** HEALTHY_AFTER_MS, below. */
  HealthyAfterMs = 120000,
  TickMs = 5000,
  /** ABANDONED_LIMIT, below. */
  AbandonedLimit = 12,
  /** Present for one boot: start without the agent and the watchdog, so flashing is not cut short by a reset. */
  MaintenanceFile = 'maintenance',
  /**
   * Present while the saved configuration is a change that has not delivered
   * yet: a change restarts the board (the agent's maker is let go once it
   * runs), and a power cut may come too, so the last-known-good rule's clock
   * starts again at the next boot instead of being lost with the RAM.
   */
  UnprovenFile = 'config.new',
  /** After a save (or resume()) on a boot that let the agent's code go: time for the console's answer to get out. */
  RestartToRunMs = 1000,
}

/** A boot that lives this long is healthy: the rapid-reboot counter starts again. */
export const HEALTHY_AFTER_MS: number = K.HealthyAfterMs;
/**
 * Abandoned connections (see SocketFactory.abandoned) at which the board
 * restarts itself: each holds one of the driver's 16 slots for good, and the
 * agent needs one per request plus a few finishing or from the console.
 */
export const ABANDONED_LIMIT: number = K.AbandonedLimit;

export type Mode = 'running' | 'console-only' | 'safe';

export interface Runtime {
  readonly p: Platform;
  /**
   * The outbox, opened with the agent's first start (its code is the
   * agent's: src/parts.ts); undefined on a boot that has not run the agent.
   */
  queue(): Outbox | undefined;
  readonly state: BootState;
  readonly store: ConfigStore;
  mode(): Mode;
  /** Why the agent is not running ('' when it is). */
  why(): string;
  config(): AgentConfig;
  /**
   * The configuration with the console's unsaved changes (the running one
   * when there are none). Only data is kept here: the editor that makes the
   * changes is cold code, loaded per command.
   */
  pending(): AgentConfig;
  /** Keeps the console's changes; undefined drops them. */
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
  /** Drops the pending changes; nothing is saved or restarted. */
  discard(): void;
  /** Leaves safe mode and starts the agent if the config allows. */
  resume(): void;
  /** Reboots into maintenance: console only, no agent, no watchdog, for flashing. */
  maintenance(): void;
  /** A restart someone asked for (reboot(), an orderly restart): the next boot does not count toward safe mode. */
  restart(why: string): void;
  stop(): void;
}

export interface RuntimeHooks {
  onDelivered?: (d: Delivery) => void;
  /**
   * The config checker (cold code on the board: the cold module 'check'), asked
   * for only when a saved file has not been checked yet or a change is saved.
   */
  codec?: CodecSource;
  /** The checker's id (src/config/store.ts): a file checked by another checker is checked again. */
  checker?: string;
  /**
   * The health report's JSON (src/agent/health.ts, cold code on the board),
   * or undefined when it cannot be made now (the module says why).
   */
  report?: (rt: Runtime) => string | undefined;
  /**
   * Loads the outputs' cold code by name (the cold loader's load()): the
   * module 'outputs' gives the agent its outputs (src/agent/outputs.ts), and
   * loads 'output-read' through this for each read.
   */
  outputs?: LoadCold;
}

/** bootWith() with the config store's and the boot state's own makers: the host and the tests. */
export function boot(p: Platform, hooks: RuntimeHooks = {}): Runtime {
  return bootWith(createConfigStore, openBootState, p, hooks);
}

/**
 * The boot, with the makers only it calls handed in. The device's entry
 * names them only at its top level (src/main.ts): named from inside a
 * function, each would be a binding of the program's module scope, kept
 * for good with the code of everything inside it: the boot state's whole
 * reading of state.json, and the store's load(), which only the boot calls
 * (let go below).
 */
export function bootWith(makeStore: typeof createConfigStore, openState: typeof openBootState, p: Platform, hooks: RuntimeHooks = {}): Runtime {
  const log = p.log;
  // Kaluma never disables the RP2040 watchdog on a soft reset: after `.load`
  // the previous program's may still run. Keep it quiet from the first line,
  // between the slow steps of the boot, and every second until the agent
  // arms (and health-checks) its own.
  p.watchdog.keepAlive();
  let keepTimer: TimerId | undefined;
  const keepAlive = (): void => {
    keepTimer = undefined;
    if (feeder) return;
    p.watchdog.keepAlive();
    keepTimer = p.timers.setTimeout(keepAlive, 1000);
  };
  try {
    p.system.seedRandom();
  } catch {
    /* Math.random stays usable, only less random */
  }
  const store = makeStore({ files: p.files, log, codec: hooks.codec || (() => 'no config checker in this program'), checker: hooks.checker || 'dev' });
  const loaded = store.load();
  let config = loaded.config;
  // No config: the agent cannot run on this boot, so its code goes now, not
  // at the end of the boot (this frees it only where the boot runs after
  // the program's top level: src/main.ts).
  if (loaded.source === 'defaults' && !loaded.unchecked) agentPart(true);
  const state = openState({ files: p.files, safeModeBoots: config.agent.safeModeBoots, log });
  log.info('pico-data-agent ' + VERSION + ' on ' + p.system.boardName() + ' ' + p.system.boardUid() + ', boot ' + state.bootId);

  p.watchdog.keepAlive();
  let led: Led | undefined;
  try {
    led = createLed({ out: p.pins.led(), timers: p.timers });
  } catch (e) {
    log.error('led: ' + String(e));
  }

  let pending: AgentConfig | undefined;
  let maintenance = false;
  let agent: Agent | undefined;
  let feeder: WatchdogFeeder | undefined;
  let tick: TimerId | undefined;
  let mode: Mode = 'console-only';
  let why = '';
  // The last-known-good rule (src/config/lkg.ts), kept here as one number:
  // the uptime of a change still waiting for its first delivery, undefined
  // once proven or never changed. It is always the running config's change,
  // so the config's lkgRevertMs is the one that counts.
  let changedAt: number | undefined;
  /** K.UnprovenFile is on flash. */
  let unproven = false;
  let everDelivered = false;
  // The configuration a delivery proved, until the supervisor's next tick
  // saves it as the last known good one: saved from the delivery's own
  // callback, the copy's ~3 KB of heap came on top of the request's.
  let proven: AgentConfig | undefined;
  let agentStartedAt = 0;
  /** Uptime of the next health report (the first at the first tick). */
  let reportAt = 0;
  let restarting: TimerId | undefined;
  let outbox: Outbox | undefined;
  /** The running agent's outputs, once started. */
  let outputs: Outputs | undefined;
  /** The running agent was given its outputs (or could not take them: its error was logged). */
  let outputsDone = false;

  /** The change is proven or gone: its flag goes (a failure only means one more wait for a delivery at the next boot). */
  function proved(): void {
    if (!unproven) return;
    unproven = false;
    try {
      p.files.remove(K.UnprovenFile);
    } catch (e) {
      log.error('config: ' + String(e));
    }
  }

  function stopAgent(): void {
    if (tick !== undefined) p.timers.clearTimeout(tick);
    tick = undefined;
    if (outputs) outputs.stop();
    outputs = undefined;
    if (agent) agent.stop();
    agent = undefined;
  }

  function healthy(): string | undefined {
    if (!agent) return undefined;
    const now = p.clock.uptimeMs();
    const u = agent.uplink.stats();
    const stuckMs = config.agent.requestTimeoutMs + 30000;
    if (u.inFlightSinceMs !== undefined && now - u.inFlightSinceMs > stuckMs) return 'uplink request stuck for ' + Math.round((now - u.inFlightSinceMs) / 1000) + ' s';
    const s = agent.sampler.stats();
    let longest = 0;
    for (const c of config.sensors) if (c.intervalMs > longest) longest = c.intervalMs;
    if (s.lastRunMs !== undefined && now - s.lastRunMs > 3 * longest + 30000) return 'sampler stalled';
    return undefined;
  }

  function armWatchdog(): void {
    if (feeder || !config.agent.watchdog) return;
    const code = agentPart();
    if (!code) return;
    const board = getBoard(config.board);
    feeder = code.createWatchdogFeeder({
      watchdog: p.watchdog, timers: p.timers, clock: p.clock, log, healthy,
      timeoutMs: code.watchdogTimeoutMs(board ? board.watchdogMaxMs : 8388),
    });
    feeder.start();
    spent(code, ['createWatchdogFeeder', 'watchdogTimeoutMs']);
    if (keepTimer !== undefined) p.timers.clearTimeout(keepTimer);
    keepTimer = undefined;
    log.info('watchdog: armed');
  }

  // Runs every few seconds while the agent runs: LED, health, last-known-good.
  function supervise(): void {
    tick = undefined;
    if (!agent) return;
    const now = p.clock.uptimeMs();
    const stale = p.sockets.abandoned();
    if (stale >= (K.AbandonedLimit as number)) {
      log.error('net: ' + stale + ' connections dropped by the TCP stack without a word hold their slots for good; restarting (every reading is on flash)');
      rt.restart('restart: connections abandoned');
      return;
    }
    const link = agent.link.stats();
    if (led) led.show(link.up ? (agent.uplink.stats().held.length ? 'held' : 'online') : everDelivered ? 'offline' : 'connecting');
    // The first association runs before the watchdog is armed: connect can
    // block 30 s, past the RP2040's 8.4 s maximum. Later ones run under it.
    if (link.up || now - agentStartedAt > 60000) armWatchdog();
    if (proven === config) {
      const e = store.saveLastKnownGood(config);
      if (e) log.error('config: ' + e);
      else if (changedAt === undefined) proved();
    }
    proven = undefined;
    attachOutputs();
    const h = config.health;
    if (h && h.id && hooks.report && now >= reportAt) {
      reportAt = now + h.intervalMs;
      const body = hooks.report(rt);
      if (body) agent.uplink.report({ apiKey: config.service.apiKey, deviceId: h.id, devicePin: h.pin }, body);
    }
    const good = revertDue(changedAt, config.agent.lkgRevertMs, now) ? store.loadLastKnownGood() : undefined;
    if (good) {
      log.error('config: the changed configuration delivered nothing for ' + Math.round(config.agent.lkgRevertMs / 60000) + ' min; going back to the last known good one');
      config = good;
      pending = undefined;
      changedAt = undefined;
      proved();
      // Restarting the agent schedules its own supervisor.
      startAgent();
      return;
    }
    tick = p.timers.setTimeout(supervise, K.TickMs);
  }

  /**
   * Gives the running agent its outputs (a config with outputs only). The
   * loader refuses when the heap is short: then again at each tick until it
   * loads; meanwhile the pins stay as the reset left them (inputs).
   */
  function attachOutputs(): void {
    if (!agent || outputsDone || !config.outputs.length || !hooks.outputs) return;
    const m = hooks.outputs<typeof StartOutputs>('outputs');
    if (!m.ok) return log.error('outputs: ' + m.error + '; trying again in ' + K.TickMs / 1000 + ' s');
    outputsDone = true;
    const made = m.value(agent.uplink, agent.client, config, p, hooks.outputs);
    if (typeof made === 'string') log.error('outputs: ' + made);
    else outputs = made;
  }

  function startAgent(): void {
    stopAgent();
    const missing = isConfigured(config);
    if (missing.length) {
      mode = 'console-only';
      why = 'not configured: set ' + missing.join(', ');
      if (led) led.show('off');
      return;
    }
    const code = agentPart();
    // The agent's maker is let go once the agent runs (below): its code was
    // 1.0 KB of the running agent's heap on the device's engine. So a change
    // of config, a revert to the last known good one (both saved first) or
    // resume() after that restarts the board into the saved configuration.
    const make = code ? (code.createAgent as AgentPart['createAgent'] | undefined) : undefined;
    if (!code || !make) {
      // This boot let the agent's code go (src/parts.ts): a restart brings it back.
      mode = 'console-only';
      why = 'restarting in ' + K.RestartToRunMs / 1000 + ' s to start the agent';
      if (!restarting) restarting = p.timers.setTimeout(() => rt.restart('restart: to start the agent'), K.RestartToRunMs);
      return;
    }
    if (!outbox) {
      // Opened once, with the agent's code; RAM only when the file store is unusable.
      p.watchdog.keepAlive();
      try {
        outbox = code.createOutbox({ files: p.files, dir: OUTBOX_DIR, maxBytes: config.agent.outboxBytes, log });
      } catch (e) {
        log.error('outbox: ' + String(e));
      }
      if (!outbox) {
        log.error('outbox: file store unusable; readings are kept in RAM only (200 at most)');
        outbox = code.createMemoryOutbox({ maxRecords: 200 });
      }
      spent(code, ['createOutbox', 'createMemoryOutbox']);
      p.watchdog.keepAlive();
    }
    const made = make({
      p, config, queue: outbox, bootId: state.bootId,
      keepBody: !!hooks.onDelivered,
      load: hooks.outputs,
      onDelivered: (d) => {
        everDelivered = true;
        if (led) led.pulse();
        const at = p.clock.uptimeMs();
        if (changedAt !== undefined && at >= changedAt) changedAt = undefined;
        proven = config;
        if (hooks.onDelivered) hooks.onDelivered(d);
      },
    });
    if (!made.ok) {
      mode = 'console-only';
      why = made.error;
      log.error('agent: ' + made.error);
      return;
    }
    agent = made.agent;
    outputsDone = false;
    agentStartedAt = p.clock.uptimeMs();
    mode = 'running';
    why = '';
    if (led) led.show('connecting');
    agent.start();
    spent(code, ['createAgent']);
    // The outputs' code is cold (the cold module 'outputs'): loaded once the boot
    // is done, where its load does not add to the boot's own peak.
    if (config.outputs.length) p.timers.setTimeout(attachOutputs, 0);
    tick = p.timers.setTimeout(supervise, K.TickMs);
  }

  const rt: Runtime = {
    p,
    queue: () => outbox,
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
    agent: () => agent,
    outputs: () => outputs,
    apply(next) {
      const e = store.save(next);
      if (e) return e;
      config = next;
      if (outbox && outbox.setMaxBytes) outbox.setMaxBytes(config.agent.outboxBytes);
      pending = undefined;
      changedAt = p.clock.uptimeMs();
      try {
        p.files.write(K.UnprovenFile, new Uint8Array([49]));
        unproven = true;
      } catch (e) {
        // The rule still holds for this boot.
        log.error('config: ' + String(e));
      }
      // Safe mode and a maintenance boot keep the agent (and its watchdog) off
      // until resume() or the next reboot.
      if (mode !== 'safe' && !maintenance) startAgent();
      return undefined;
    },
    discard() {
      pending = undefined;
    },
    resume() {
      maintenance = false;
      state.leaveSafeMode();
      if (mode === 'safe') mode = 'console-only';
      startAgent();
    },
    maintenance() {
      try {
        p.files.write(K.MaintenanceFile, new Uint8Array([49]));
      } catch (e) {
        log.error('maintenance: ' + String(e) + '; not rebooting');
        try {
          p.files.remove(K.MaintenanceFile);
        } catch {
          /* a half-written flag does not count: see the check at boot */
        }
        return;
      }
      rt.restart('restart: maintenance');
    },
    restart(why) {
      state.restartAsked(why);
      rt.stop();
      p.system.reboot();
    },
    stop() {
      stopAgent();
      if (keepTimer !== undefined) p.timers.clearTimeout(keepTimer);
      keepTimer = undefined;
      if (feeder) feeder.stop();
      if (led) led.stop();
    },
  };

  // A boot that lived this long was not a crash loop, whatever mode it is in.
  p.timers.setTimeout(() => state.markHealthy(), K.HealthyAfterMs);
  keepAlive();

  if (loaded.errors.length) {
    // store.load() already logged each error.
    log.error('config: the saved configuration is invalid (' + loaded.errors.length + ' errors above); starting with the console only');
  }
  try {
    const flag = p.files.read(K.MaintenanceFile);
    // Only a whole flag counts; a torn write from a failed maintenance() does not.
    maintenance = !!flag && flag.length === 1 && flag[0] === 49;
    if (flag) p.files.remove(K.MaintenanceFile);
  } catch {
    maintenance = false;
  }
  try {
    // A change saved on an earlier boot that never delivered: it is still on trial.
    unproven = !!p.files.read(K.UnprovenFile);
  } catch {
    unproven = false;
  }
  // A file nobody checked yet was written by flash.sh: a person's choice, not a change on trial.
  if (loaded.unchecked) proved();
  else if (unproven) changedAt = 0;
  if (maintenance) {
    why = 'maintenance boot: agent and watchdog off until the next reboot; flash or copy files now';
    // What ends this boot is the flashing (`.load`) or a reset by hand: not a crash.
    state.restartAsked('maintenance boot');
  } else if (state.safeMode) {
    mode = 'safe';
    why = state.reason;
    if (led) led.show('safe');
  } else if (loaded.unchecked) {
    why = 'checking the saved configuration; the agent starts after a restart';
  } else if (!loaded.errors.length) {
    startAgent();
    // Not for a boot that stays console-only (nothing configured yet): the
    // next boot would read 'running', and it cost a flash write for nothing.
    if (rt.mode() === 'running') state.record('running');
  } else {
    why = 'saved configuration invalid (see the errors above); fix with set() and save()';
  }
  // The store's load() runs once a boot (twice for an unchecked file, below).
  if (!loaded.unchecked) spent(store, ['load']);
  if (loaded.unchecked) {
    // The first boot after a new config was flashed: the checker was not to
    // be loaded during the boot (src/main.ts). It runs once the boot is done,
    // with the agent's code let go (below); a complete config then restarts
    // the board into the agent, with the checked form on flash.
    p.timers.setTimeout(() => {
      const again = store.load();
      spent(store, ['load']);
      if (mode === 'safe' || maintenance) {
        if (again.source === 'file') config = again.config;
        return;
      }
      if (again.source === 'file') {
        config = again.config;
        // On the device the agent's code is gone by now: this schedules the
        // restart into it. Where the code stays (the host), the agent starts.
        startAgent();
      } else {
        why = 'saved configuration invalid (see the errors above); fix with set() and save()';
      }
      if (mode === 'running') state.record('running');
      else log.info('agent: console only: ' + why);
    }, 0);
  }
  if (rt.mode() !== 'running') {
    // The agent's code is not needed before a save or resume(), and those
    // restart the board: its heap goes to the console (src/parts.ts).
    agentPart(true);
    log.info('agent: ' + (rt.mode() === 'safe' ? 'SAFE MODE: ' : 'console only: ') + why);
    log.info(rt.mode() === 'safe' ? 'type resume() to start the agent, or fix the config first (config(), set(), save())' : "type help() for the commands, e.g. set('wifi.ssid', 'my-net')");
  }
  return rt;
}
