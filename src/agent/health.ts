// The agent's health as one JSON object for a JSON device of the account, so
// boards in the field are watched from the service, not a serial cable.
// Secrets never appear: the key is masked, the Wi-Fi password named.
import { configOrigin, remoteShown } from './remote-state';
import type { Runtime } from '../runtime';
import { maskSecret } from '../service/client';
import { VERSION } from '../version';
import { S } from '../sensors/i2c/state';

const sec = (ms: number): number => Math.round(ms / 1000);

/** `s` with the API key masked (its short prefix and length) and the Wi-Fi password named, not shown. */
function masked(s: string, key: string, password: string): string {
  if (key) s = s.split(key).join(maskSecret(key));
  if (password) s = s.split(password).join('(wifi.password)');
  return s;
}

/** What the report reads of the runtime. */
export type HealthRt = Pick<Runtime, 'p' | 'consoleError' | 'mode' | 'state' | 'config' | 'agent' | 'queue' | 'outputs'>;

/** The report, as the JSON text to write. */
export function healthReport(rt: HealthRt): string {
  const p = rt.p;
  const now = p.clock.uptimeMs();
  const cfg = rt.config();
  const a = rt.agent();
  const box = rt.queue();
  // The live set, right after a collection (the board's only way to know it).
  if (p.system.collect) p.system.collect();
  const m = p.system.memory();
  // The configuration in force (the CRC of config.json) and where it came from.
  const origin = configOrigin(p.files);
  const r: Record<string, unknown> = {
    fw: VERSION,
    board: p.system.boardName(),
    uid: p.system.boardUid(),
    boot: rt.state.bootId,
    uptimeS: sec(now),
    intervalS: sec(cfg.health.intervalMs),
    lastReset: rt.state.lastAsked ? rt.state.lastState : 'unasked (watchdog, power or crash) while: ' + (rt.state.lastState || 'unknown'),
    mode: rt.mode(),
    heap: m ? { used: m.heapUsed, peak: m.heapPeak, total: m.heapTotal } : null,
    config: origin.crc,
    configSource: origin.source,
  };
  // The configuration's device: its last document and what became of it.
  const remote = remoteShown(p.files, cfg, origin.crc, a && a.time.known() ? p.clock.wallMs() : undefined);
  if (remote) r.remote = remote;
  if (box) {
    const q = box.stats();
    const head = box.peek(1)[0];
    // The oldest reading's age, where this boot can tell: taken on this boot, or dated then.
    const age = !head ? 0 : head.bootId === rt.state.bootId ? now - head.uptimeMs : head.wallMs !== undefined && a && a.time.known() ? p.clock.wallMs() - head.wallMs : undefined;
    r.outbox = { depth: q.depth, bytes: q.bytes, oldestS: age === undefined ? null : sec(age), dropped: q.dropped, rejected: q.rejected };
  }
  let error = rt.consoleError;
  if (a) {
    const u = a.uplink.stats();
    const l = a.link.stats();
    const s = a.sampler.stats();
    r.delivery = { writes: u.sent, readings: u.delivered, retries: u.retries, rejected: u.rejected, lastS: u.lastDeliveryMs === undefined ? null : sec(now - u.lastDeliveryMs) };
    r.link = { up: l.up, joins: l.associations, notSeen: l.notVisible, radioResets: l.resets, reboots: l.reboots, lastStep: l.lastStep };
    // Kaluma 1.2.1's Wi-Fi driver reports no signal strength.
    r.rssi = null;
    r.clockSynced = a.time.known();
    r.sampler = { runs: s.runs, errors: s.errors };
    if (a.i2c) {
      const i2c: Record<string, unknown> = {};
      for (let i = 0; i < a.i2c.length; i++) {
        const st = (a.i2c[i] as (typeof a.i2c)[0]).st_;
        const error = st[S.Error];
        i2c[st[S.Cfg].name] = { reads: st[S.Reads], failed: st[S.Failures], error: error === undefined ? null : error };
      }
      r.i2c = i2c;
    }
    const held: Record<string, unknown> = {};
    for (let i = 0; i < u.held.length; i++) {
      const h = u.held[i] as (typeof u.held)[0];
      held[h.device] = { status: h.status === undefined ? null : h.status, reason: masked(h.reason, cfg.service.apiKey, cfg.wifi.password), sinceS: sec(now - h.sinceMs), nextS: sec(Math.max(0, h.nextMs - now)), tries: h.attempt };
    }
    r.held = held;
    const running = rt.outputs();
    if (running) {
      const outs: Record<string, unknown> = {};
      const os = running.list;
      for (let i = 0; i < os.length; i++) {
        const o = os[i] as (typeof os)[0];
        outs[o.c.name] = { level: o.level, safe: o.safe, goodS: o.goodAt === undefined ? null : sec(now - o.goodAt), reads: o.reads, failed: o.failures, refused: o.refused };
      }
      r.outputs = outs;
    }
    error = u.lastError || s.lastError || error;
  }
  r.error = error ? masked(error, cfg.service.apiKey, cfg.wifi.password) : null;
  return JSON.stringify(r);
}
