// The running agent and its supervisor. start() makes the agent on a
// configuration (the outbox opened with the first one) and runs it; then a
// tick every few seconds restarts the board when abandoned connections hold
// the driver's slots, shows the link on the LED, arms the watchdog, keeps a
// change of config on trial (src/config/trial.ts), gives the agent its
// outputs and the configuration device's poll (src/agent/remote.ts), and
// sends the health report when due. Until the watchdog is armed
// it keeps the one a previous program may have left running quiet.
import type { Agent } from './agent';
import type { Led } from './led';
import type { LoadCold, Outputs } from './outputs';
import type { AgentPart } from './part';
import type { Delivery, Uplink } from './uplink';
import type { WatchdogFeeder } from './watchdog';
import { getBoard } from '../board';
import { isConfigured } from '../config/defaults';
import type { ConfigTrial } from '../config/trial';
import type { AgentConfig } from '../config/types';
import type { Platform, TimerId } from '../ports/ports';
import type { ServiceClient } from '../service/client';
import { OUTBOX_DIR } from '../queue/dir';
import type { Outbox } from '../queue/types';
import { agentPart, spent } from '../parts';

// Put in place by the build: a module-level const would be a binding on the heap for good.
const enum K {
  TickMs = 5000,
  /** ABANDONED_LIMIT, below. */
  AbandonedLimit = 12,
  /** Without a link the watchdog is armed this long after the agent's start: a first association may block 30 s. */
  ArmAfterMs = 60000,
  /** After a save (or resume()) on a boot that let the agent's code go: time for the console's answer to get out. */
  RestartToRunMs = 1000,
}

/**
 * Abandoned connections (see SocketFactory.abandoned) at which the board
 * restarts itself: each holds one of the driver's 16 slots for good, and the
 * agent needs one per request plus a few finishing or from the console.
 */
export const ABANDONED_LIMIT: number = K.AbandonedLimit;

export interface Supervisor {
  /** The running agent, undefined when stopped or not started. */
  readonly agent: Agent | undefined;
  /** The outbox, opened with the agent's first start (its code is the agent's: src/parts.ts); undefined before. */
  readonly queue: Outbox | undefined;
  /** The running agent's outputs (src/agent/outputs.ts), once started; undefined without any. */
  readonly outputs: Outputs | undefined;
  /** Stops the running agent, starts one on `config`: '' when it runs, else why not. */
  start(config: AgentConfig): string;
  /** Stops the agent, its ticks and its outputs; `all`: the watchdog's feeding and the LED too (the board stops). */
  stop(all?: boolean): void;
}

export function createSupervisor<R extends { restart(why: string): void }>(o: {
  p: Platform;
  led: Led | undefined;
  trial: ConfigTrial;
  bootId: number;
  /** What restart() and the health report are given. */
  rt: R;
  /** Loads cold code by name (src/runtime.ts, RuntimeHooks.load): the health report, the outputs, the configuration's poll, the held devices' lanes. */
  load?: LoadCold;
  onDelivered?: (d: Delivery) => void;
  /** Runs the last known good configuration instead of the running one (through start()). */
  revert: (good: AgentConfig) => void;
}): Supervisor {
  const { p, led, trial, rt, load, onDelivered, revert, bootId } = o;
  const log = p.log;
  let agent: Agent | undefined;
  let config: AgentConfig | undefined;
  let tick: TimerId | undefined;
  let keepTimer: TimerId | undefined;
  let feeder: WatchdogFeeder | undefined;
  let restarting: TimerId | undefined;
  let startedAt = 0;
  let everDelivered = false;
  /** Uptime of the running agent's last delivery since the last tick. */
  let deliveredAt: number | undefined;
  /** Uptime of the next health report (the first at the first tick). */
  let reportAt = 0;
  /** The kept cold modules the running agent was given (or could not take: the error was logged): 1 its outputs, 2 the configuration's poll. */
  let attached = 0;
  /** The configuration's poll (src/agent/remote.ts), once started. */
  let remote: { stop(): void } | undefined;

  // Kaluma never disables the RP2040 watchdog on a soft reset: after `.load`
  // the previous program's may still run. Fed every second until the agent
  // arms (and health-checks) its own.
  function keepAlive(): void {
    keepTimer = undefined;
    if (feeder) return;
    p.watchdog.keepAlive();
    keepTimer = p.timers.setTimeout(keepAlive, 1000);
  }

  function healthy(): string | undefined {
    if (!agent || !config) return undefined;
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

  /**
   * Gives the running agent its kept cold modules: its outputs (a config with
   * outputs), the configuration device's poll (remote.id set). The loader
   * refuses when the heap is short: then again at each tick until it loads;
   * meanwhile the pins stay as the reset left them (inputs). One loop for
   * both, as every function costs heap for good.
   */
  function attach(): void {
    for (let i = 0; i < 2; i++) {
      const name = i ? 'remote' : 'outputs';
      if (!agent || !config || !load || attached & (i + 1) || !(i ? config.remote && config.remote.id : config.outputs.length)) continue;
      const m = load<(up: Uplink, client: ServiceClient, c: AgentConfig, p: Platform, load: LoadCold, rt: R) => { stop(): void } | string>(name);
      if (!m.ok) {
        log.error(name + ': ' + m.error + '; trying again in ' + K.TickMs / 1000 + ' s');
        continue;
      }
      attached |= i + 1;
      const made = m.value(agent.uplink, agent.client, config, p, load, rt);
      if (typeof made === 'string') log.error(name + ': ' + made);
      else if (i) remote = made;
      else self.outputs = made as Outputs;
    }
  }

  function supervise(): void {
    tick = undefined;
    if (!agent || !config) return;
    const now = p.clock.uptimeMs();
    const stale = p.sockets.abandoned();
    if (stale >= (K.AbandonedLimit as number)) {
      log.error('net: ' + stale + ' connections dropped by the TCP stack without a word hold their slots for good; restarting (every reading is on flash)');
      return rt.restart('restart: connections abandoned');
    }
    const link = agent.link.stats();
    if (led) led.show(link.up ? (agent.uplink.stats().held.length ? 'held' : 'online') : everDelivered ? 'offline' : 'connecting');
    // The first association runs before the watchdog is armed: connect can
    // block 30 s, past the RP2040's 8.4 s maximum. Later ones run under it.
    const code = !feeder && config.agent.watchdog && (link.up || now - startedAt > (K.ArmAfterMs as number)) ? agentPart() : undefined;
    if (code) {
      const board = getBoard(config.board);
      feeder = code.createWatchdogFeeder({ watchdog: p.watchdog, timers: p.timers, clock: p.clock, log, healthy, timeoutMs: code.watchdogTimeoutMs(board ? board.watchdogMaxMs : 8388) });
      feeder.start();
      spent(code, ['createWatchdogFeeder', 'watchdogTimeoutMs']);
      if (keepTimer !== undefined) p.timers.clearTimeout(keepTimer);
      keepTimer = undefined;
      log.info('watchdog: armed');
    }
    const good = trial.check(config, now, deliveredAt);
    deliveredAt = undefined;
    attach();
    const h = config.health;
    if (h && h.id && load && now >= reportAt) {
      // The report's code is cold: loaded for each report and let go.
      reportAt = now + h.intervalMs;
      const m = load<(r: R) => string>('health');
      if (m.ok) agent.uplink.report({ apiKey: config.service.apiKey, deviceId: h.id, devicePin: h.pin }, m.value(rt));
      else log.error('health: ' + m.error);
    }
    // The new agent schedules its own tick.
    if (good) revert(good);
    else tick = p.timers.setTimeout(supervise, K.TickMs);
  }

  const self: { agent: Agent | undefined; queue: Outbox | undefined; outputs: Outputs | undefined } & Pick<Supervisor, 'start' | 'stop'> = {
    agent: undefined,
    queue: undefined,
    outputs: undefined,
    start(c) {
      self.stop();
      const q = self.queue;
      // A change's bound holds at once (the host restarts the agent in place).
      if (q && q.setMaxBytes) q.setMaxBytes(c.agent.outboxBytes);
      const missing = isConfigured(c);
      if (missing.length) {
        if (led) led.show('off');
        return 'not configured: set ' + missing.join(', ');
      }
      const code = agentPart();
      // The agent's maker is let go once the agent runs (below), for the heap
      // its code holds: so a change of config, a revert to the last known good
      // one (both saved first) or resume() after that restarts the board.
      const make = code ? (code.createAgent as AgentPart['createAgent'] | undefined) : undefined;
      if (!code || !make) {
        // This boot let the agent's code go (src/parts.ts): a restart brings it back.
        if (!restarting) restarting = p.timers.setTimeout(() => rt.restart('restart: to start the agent'), K.RestartToRunMs);
        return 'restarting in ' + K.RestartToRunMs / 1000 + ' s to start the agent';
      }
      let box = self.queue;
      if (!box) {
        // Opened once, with the agent's code; RAM only when the file store is unusable.
        p.watchdog.keepAlive();
        try {
          box = code.createOutbox({ files: p.files, dir: OUTBOX_DIR, maxBytes: c.agent.outboxBytes, log });
        } catch (e) {
          log.error('outbox: ' + String(e));
        }
        if (!box) {
          log.error('outbox: file store unusable; readings are kept in RAM only (200 at most)');
          box = code.createMemoryOutbox({ maxRecords: 200 });
        }
        self.queue = box;
        spent(code, ['createOutbox', 'createMemoryOutbox']);
        p.watchdog.keepAlive();
      }
      const made = make({
        p, config: c, queue: box, bootId,
        keepBody: !!onDelivered,
        // The held devices' lanes are cold code too.
        load,
        onDelivered: (d) => {
          everDelivered = true;
          if (led) led.pulse();
          deliveredAt = p.clock.uptimeMs();
          if (onDelivered) onDelivered(d);
        },
      });
      if (!made.ok) {
        log.error('agent: ' + made.error);
        return made.error;
      }
      agent = self.agent = made.agent;
      config = c;
      attached = 0;
      startedAt = p.clock.uptimeMs();
      if (led) led.show('connecting');
      agent.start();
      spent(code, ['createAgent']);
      // The outputs' code and the poll's are cold (the cold modules 'outputs',
      // 'remote'): loaded once the boot is done, where a load does not add to
      // the boot's own peak.
      if (c.outputs.length || (c.remote && c.remote.id)) p.timers.setTimeout(attach, 0);
      tick = p.timers.setTimeout(supervise, K.TickMs);
      return '';
    },
    stop(all) {
      if (tick !== undefined) p.timers.clearTimeout(tick);
      tick = deliveredAt = undefined;
      if (self.outputs) self.outputs.stop();
      if (remote) remote.stop();
      self.outputs = remote = undefined;
      if (agent) agent.stop();
      agent = self.agent = undefined;
      if (!all) return;
      if (keepTimer !== undefined) p.timers.clearTimeout(keepTimer);
      keepTimer = undefined;
      if (feeder) feeder.stop();
      if (led) led.stop();
    },
  };
  keepAlive();
  return self;
}
