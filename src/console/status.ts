// status(): the agent's state, one setting a line (cold module 'state').
// Wi-Fi, the service and each held device are named apart, so a line never
// blames one for another.
import type { Agent } from '../agent/agent';
import type { UplinkStats } from '../agent/uplink';
import type { LinkStats } from '../agent/link';
import { configOrigin, remoteShown } from '../agent/remote-state';
import type { FileStore } from '../ports/ports';
import { OUTBOX_DIR, SEGMENT } from '../queue/dir';
import type { Runtime } from '../runtime';
import { VERSION } from '../version';
import { S } from '../sensors/i2c/state';

type Say = (label: string, text: string) => void;

export function ago(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return s + ' s';
  const m = Math.round(s / 60);
  if (m < 120) return m + ' min';
  return Math.floor(m / 60) + ' h ' + (m % 60) + ' min';
}

const count = (k: number, one: string, many: string): string => k + ' ' + (k === 1 ? one : many);

/** What the operator can do about a held device (src/service/refusal.ts), by the status it was held with. */
function holdHint(status: number | undefined): string {
  if (status === 401) return 'fix service.apiKey';
  if (status === 403) return 'check the key\'s rights at the service';
  if (status === 404 || status === 410) return 'check the device\'s id and pin (it may have been made again)';
  if (status === 409) return 'check the device\'s format';
  if (status !== undefined && status >= 300 && status < 400) return 'check service.url';
  return 'check service.apiKey and the device';
}

/**
 * What the outbox holds on flash, read from its files' sizes alone: before
 * the agent runs, its code (and so the outbox) is not loaded (src/parts.ts).
 * An upper bound: a segment may still hold records already acknowledged.
 */
function onFlash(files: FileStore): string {
  let n = 0;
  let bytes = 0;
  try {
    for (const f of files.list(OUTBOX_DIR)) {
      if (!SEGMENT.test(f)) continue;
      n++;
      bytes += files.size(OUTBOX_DIR + '/' + f) || 0;
    }
  } catch (e) {
    return 'not readable (' + String(e) + ')';
  }
  return n ? 'up to ' + bytes + ' B on flash (' + n + ' segment' + (n > 1 ? 's' : '') + ')' : 'nothing on flash';
}

/**
 * One setting a line, under its label. A line past 79 columns goes on,
 * indented, at the start of a phrase (after ', ' or '; '), never inside one.
 */
function sayer(out: (line: string) => void): Say {
  return (label, text) => {
    const parts = text.replace(/([,;]) /g, '$1\n').split('\n');
    let l = (label + '          ').slice(0, 10) + parts[0];
    for (let i = 1; i < parts.length; i++) {
      const ph = parts[i] as string;
      if (l.length + 1 + ph.length > 79) {
        out(l);
        l = '  ' + ph;
      } else l += ' ' + ph;
    }
    out(l);
  };
}

/**
 * Three states, three names: Wi-Fi down (the link's check failed), the service
 * unreachable (no connection or no answer), the service refusing (it said no).
 * `current`: the last error still holds (nothing went through since).
 */
export function linkStates(l: LinkStats, u: UplinkStats, devices: number, now: number): { wifi: string; service: string; current: boolean } {
  const err = u.lastError || '';
  const down = !l.up && (err.indexOf('Wi-Fi link down') === 0 || l.lastStep === 'SSID not visible' || l.lastStep === 'no SSID configured');
  const wifi = l.up ? 'up' : down ? 'down' : l.lastStep === 'radio off' ? 'off between uploads' : l.checks ? 'up at the last check' : 'not checked yet';
  const wait = u.nextAttemptMs !== undefined && u.nextAttemptMs > now ? u.nextAttemptMs - now : undefined;
  const current = !!err && (u.lastDeliveryMs === undefined || wait !== undefined || !l.up);
  let service: string;
  if (u.held.length) service = 'refusing ' + (u.held.length === devices ? 'every device' : u.held.length + ' of ' + devices + ' devices') + ' (held, below)';
  else if (!current) service = u.lastDeliveryMs === undefined ? 'not tried yet' : 'reachable';
  else if (down) service = 'not tried: Wi-Fi down';
  else if (/^(connect|timeout|reset):/.test(err)) service = 'unreachable: ' + err;
  else if (/^HTTP \d/.test(err)) service = 'refusing: ' + err;
  else if (/^(protocol|encoding|too-large):/.test(err)) service = 'answers unreadable: ' + err;
  else service = 'not tried: ' + err;
  return { wifi, service: service + (wait === undefined ? '' : '; next try in ' + ago(wait)), current };
}

/** What status() reaches of the runtime. */
export type StatusRt = Pick<Runtime, 'p' | 'consoleError' | 'mode' | 'why' | 'state' | 'config' | 'agent' | 'queue' | 'outputs'>;

/** One line per device the service refuses for a reason the operator can fix. */
function heldLines(say: Say, rt: StatusRt, a: Agent, u: UplinkStats, now: number): void {
  const box = rt.queue();
  const p = rt.p;
  for (let i = 0; i < u.held.length; i++) {
    const h = u.held[i] as (typeof u.held)[0];
    const lane = box && box.lane ? box.lane(h.device) : undefined;
    const aside = lane ? lane.stats().depth : 0;
    const at = a.time.known() ? new Date(p.clock.wallMs() - (now - h.sinceMs)).toISOString().slice(11, 16) + ' UTC, ' : '';
    say('held', 'device ' + h.device + ': ' + h.reason + ', since ' + at + ago(now - h.sinceMs) + (aside ? ', ' + count(aside, 'reading', 'readings') + ' set aside' : '') +
      ', next try in ' + ago(Math.max(0, h.nextMs - now)) + '; ' + holdHint(h.status) + ', then save()');
  }
}

/** One line per I2C sensor: its part, address and bus, reads and failures, and the failure of now. */
function i2cLines(say: Say, a: Agent): void {
  const list = a.i2c || [];
  for (let i = 0; i < list.length; i++) {
    const st = (list[i] as (typeof list)[0]).st_;
    const c = st[S.Cfg];
    const error = st[S.Error];
    say('i2c', c.name + ' (' + c.kind + ' at 0x' + (c.address as number).toString(16) + ', bus ' + String(c.bus || 0) + '): ' + count(st[S.Reads], 'read', 'reads') + ', ' + st[S.Failures] + ' failed' + (error === undefined ? '' : '; failing now: ' + error));
  }
}

/** One line per output: level, source, last good read, refusals, safe or not. */
function outputLines(say: Say, rt: StatusRt, now: number): void {
  const running = rt.outputs();
  const os = running ? running.list : [];
  for (let i = 0; i < os.length; i++) {
    const o = os[i] as (typeof os)[0];
    const lv = o.c.kind === 'pwm' ? Math.round(o.level * 1000) / 10 + '%' : o.level ? 'on' : 'off';
    say('output', o.c.name + ' GP' + o.c.pin + ' ' + lv + (o.safe ? ' SAFE' : '') + ', source ' + o.c.sourceId + (o.c.field ? '.' + o.c.field : '') +
      ', good read ' + (o.goodAt === undefined ? 'none yet' : ago(now - o.goodAt) + ' ago') + ', ' + count(o.reads, 'read', 'reads') + ', ' + o.failures + ' failed, ' + o.refused + ' refused' +
      (o.lastError ? '; last: ' + o.lastError : ''));
  }
}

/** The running agent's lines: Wi-Fi, the service, delivery, HTTP, clock, sampler, held devices, health, outputs. */
function agentLines(say: Say, rt: StatusRt, a: Agent, now: number): void {
  const p = rt.p;
  const l = a.link.stats();
  const u = a.uplink.stats();
  const st = linkStates(l, u, rt.config().devices.length, now);
  say('wifi', st.wifi + ' (' + rt.config().wifi.ssid + '), joins ' + l.associations + ', not seen ' + l.notVisible + ', radio resets ' + l.resets + ', last step: ' + l.lastStep);
  say('service', st.service);
  say('delivery', (u.lastDeliveryMs === undefined ? 'none yet' : 'last ' + ago(now - u.lastDeliveryMs) + ' ago') + ', ' + count(u.delivered, 'reading', 'readings') + ' in ' + count(u.sent, 'write', 'writes') + ', ' + count(u.retries, 'retry', 'retries'));
  const h = a.http.stats();
  let fails = '';
  for (const k in h.failures) fails += ', ' + k + ' ' + h.failures[k as keyof typeof h.failures];
  say('http', count(h.exchanges, 'exchange', 'exchanges') + (fails ? '; failed' + fails.slice(1) : '') + '; connections abandoned ' + p.sockets.abandoned());
  say('clock', a.time.known() ? new Date(p.clock.wallMs()).toISOString() : 'not set yet (set from the service\'s Date header)');
  const s = a.sampler.stats();
  say('sampler', count(s.runs, 'run', 'runs') + ', ' + count(s.errors, 'sensor error', 'sensor errors') + ', ' + s.dropped + ' filtered out');
  i2cLines(say, a);
  heldLines(say, rt, a, u, now);
  const hc = rt.config().health;
  if (hc && hc.id) say('health', 'device ' + hc.id + ', ' + count(u.reports, 'report', 'reports') + (u.lastReportMs === undefined ? '' : ', last ' + ago(now - u.lastReportMs) + ' ago') + ', every ' + ago(hc.intervalMs));
  outputLines(say, rt, now);
  // An error the lines above name already (service, held) is not repeated.
  if (u.lastError && !st.current) say('last err', u.lastError);
  else if (s.lastError) say('last err', s.lastError);
}

/**
 * The configuration's device (remote.id set): its last document and what
 * became of it, and where the running configuration came from: what the
 * health report's "remote", "config" and "configSource" say.
 */
function remoteLine(say: Say, rt: StatusRt, a: Agent | undefined): void {
  const p = rt.p;
  const o = configOrigin(p.files);
  const r = remoteShown(p.files, rt.config(), o.crc, a && a.time.known() ? p.clock.wallMs() : undefined);
  if (!r) return;
  say('remote', 'device ' + r.id + ', every ' + ago(rt.config().remote.pollMs) + ': ' + (r.crc ? 'document ' + r.crc + ' ' : '') + r.outcome +
    (r.ignored.length ? ', left out ' + r.ignored.join(' ') : '') + (r.atS === null ? '' : ', seen ' + ago(r.atS * 1000) + ' ago') + '; running config ' + (o.crc || 'none') + ' from ' + o.source);
}

/** status(): every line, through `out`. */
export function statusLines(rt: StatusRt, out: (line: string) => void): void {
  const p = rt.p;
  const now = p.clock.uptimeMs();
  const say = sayer(out);
  const a = rt.agent();
  const box = rt.queue();
  say('agent', VERSION + ', ' + rt.mode() + ', boot ' + rt.state.bootId + ', up ' + ago(now));
  if (rt.why()) say('why', rt.why());
  if (a) agentLines(say, rt, a, now);
  remoteLine(say, rt, a);
  if (box) {
    const q = box.stats();
    say('outbox', q.depth + ' queued (' + q.bytes + ' B), dropped ' + q.dropped + ', rejected ' + q.rejected + (q.lastReject ? ' (' + q.lastReject + ')' : ''));
  } else say('outbox', onFlash(p.files) + '; opens with the agent');
  const m = p.system.memory();
  if (m) say('heap', m.heapUsed + ' of ' + m.heapTotal + ' B used, peak ' + m.heapPeak + ' B');
  say('safe mode', rt.mode() === 'safe' ? 'YES: ' + rt.state.reason : 'no');
  if (rt.consoleError) say('console', 'last error: ' + rt.consoleError);
}
