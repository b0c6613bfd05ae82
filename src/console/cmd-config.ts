// The everyday commands: the agent's state and restarts (cold module
// 'state'), the configuration shown (cold module 'show') and changed with
// the editor (cold module 'config').
import { changeLines, describeConfig } from '../config/describe';
import { formatValue } from '../config/format';
import { keyList, missingKeys } from '../config/required';
import type { Field } from '../config/schema';
import { SCALAR_FIELDS, findField } from '../config/schema';
import type { FileStore } from '../ports/ports';
import { OUTBOX_DIR, SEGMENT } from '../queue/dir';
import { VERSION } from '../version';
import type { Commands, Ctx } from './shared';
import { edit } from './shared';

function ago(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return s + ' s';
  const m = Math.round(s / 60);
  if (m < 120) return m + ' min';
  return Math.floor(m / 60) + ' h ' + (m % 60) + ' min';
}

/** What the operator can do about a held device (src/service/refusal.ts), by the status it was held with. */
function holdHint(status: number | undefined): string {
  if (status === 401) return 'fix service.apiKey';
  if (status === 403) return 'check the key\'s rights at the service';
  if (status === 404 || status === 410) return 'check the device\'s id and pin (it may have been made again)';
  if (status === 409) return 'check the device\'s format';
  if (status !== undefined && status >= 300 && status < 400) return 'check service.url';
  return 'check service.apiKey and the device';
}

export function stateCommands(c: Ctx): Commands {
  const rt = c.rt;
  const p = rt.p;
  const out = c.out;
  const fail = c.fail;
  return {
    status() {
      const now = p.clock.uptimeMs();
      const a = rt.agent();
      const box = rt.queue();
      out('agent     ' + VERSION + ', ' + rt.mode() + ', boot ' + rt.state.bootId + ', up ' + ago(now));
      if (rt.why()) out('why       ' + rt.why());
      if (a) {
        const l = a.link.stats();
        out('wifi      ' + (l.up ? 'up' : 'down') + ' (' + rt.config().wifi.ssid + '), joins ' + l.associations + ', not seen ' + l.notVisible + ', radio resets ' + l.resets + ', last step: ' + l.lastStep);
        const u = a.uplink.stats();
        out('delivery  ' + (u.lastDeliveryMs === undefined ? 'none yet' : 'last ' + ago(now - u.lastDeliveryMs) + ' ago') + ', ' + u.delivered + ' readings in ' + u.sent + ' writes, ' + u.retries + ' retries');
        if (u.nextAttemptMs !== undefined && u.nextAttemptMs > now) out('next try  in ' + ago(u.nextAttemptMs - now));
        const h = a.http.stats();
        let fails = '';
        for (const k in h.failures) fails += ', ' + k + ' ' + h.failures[k as keyof typeof h.failures];
        out('http      ' + h.exchanges + ' exchanges' + (fails ? '; failed' + fails.slice(1) : '') + '; connections abandoned ' + p.sockets.abandoned());
        out('clock     ' + (a.time.known() ? new Date(p.clock.wallMs()).toISOString() : 'not set yet (set from the service\'s Date header)'));
        const s = a.sampler.stats();
        out('sampler   ' + s.runs + ' runs, ' + s.errors + ' sensor errors, ' + s.dropped + ' filtered out');
        // One line per device the service refuses for a reason the operator can fix.
        for (let i = 0; i < u.held.length; i++) {
          const h = u.held[i] as (typeof u.held)[0];
          const lane = box && box.lane ? box.lane(h.device) : undefined;
          const aside = lane ? lane.stats().depth : 0;
          const at = a.time.known() ? new Date(p.clock.wallMs() - (now - h.sinceMs)).toISOString().slice(11, 16) + ' UTC, ' : '';
          out('held      device ' + h.device + ': ' + h.reason + ', since ' + at + ago(now - h.sinceMs) + (aside ? ', ' + aside + (aside > 1 ? ' readings' : ' reading') + ' set aside' : '') +
            ', next try in ' + ago(Math.max(0, h.nextMs - now)) + '; ' + holdHint(h.status) + ', then save()');
        }
        const hc = rt.config().health;
        if (hc && hc.id) out('health    device ' + hc.id + ', ' + u.reports + ' reports' + (u.lastReportMs === undefined ? '' : ', last ' + ago(now - u.lastReportMs) + ' ago') + ', every ' + ago(hc.intervalMs));
        // One line per output: level, source, last good read, refusals, safe or not.
        const os = a.outputs ? a.outputs.list : [];
        for (let i = 0; i < os.length; i++) {
          const o = os[i] as (typeof os)[0];
          const lv = o.c.kind === 'pwm' ? Math.round(o.level * 1000) / 10 + '%' : o.level ? 'on' : 'off';
          out('output    ' + o.c.name + ' GP' + o.c.pin + ' ' + lv + (o.safe ? ' SAFE' : '') + ', source ' + o.c.sourceId + (o.c.field ? '.' + o.c.field : '') +
            ', good read ' + (o.goodAt === undefined ? 'none yet' : ago(now - o.goodAt) + ' ago') + ', ' + o.reads + ' reads, ' + o.failures + ' failed, ' + o.refused + ' refused' +
            (o.lastError ? '; last: ' + o.lastError : ''));
        }
        if (u.lastError) out('last err  ' + u.lastError);
        else if (s.lastError) out('last err  ' + s.lastError);
      }
      if (box) {
        const q = box.stats();
        out('outbox    ' + q.depth + ' queued (' + q.bytes + ' B), dropped ' + q.dropped + ', rejected ' + q.rejected + (q.lastReject ? ' (' + q.lastReject + ')' : ''));
      } else out('outbox    ' + onFlash(p.files) + '; opens with the agent');
      const m = p.system.memory();
      if (m) out('heap      ' + m.heapUsed + ' of ' + m.heapTotal + ' B used, peak ' + m.heapPeak + ' B');
      out('safe mode ' + (rt.mode() === 'safe' ? 'YES: ' + rt.state.reason : 'no'));
      if (rt.consoleError) out('console   last error: ' + rt.consoleError);
    },

    save() {
      if (!rt.dirty()) return out('nothing to save');
      const e = rt.apply(rt.pending());
      if (e) return fail('save: ' + e);
      out('saved; agent ' + rt.mode() + (rt.why() ? ': ' + rt.why() : ''));
    },

    discard() {
      if (!rt.dirty()) return out('nothing to discard: no unsaved changes');
      rt.discard();
      out('unsaved changes dropped');
    },

    sensors() {
      const a = rt.agent();
      if (!a) return fail('sensors: the agent is not running (' + rt.why() + ')');
      const got = a.sampler.peek();
      if (!got.length) out('no sensor gave a reading');
      for (const s of got) out(s.sensor + ' = ' + Math.round(s.value * 1000) / 1000 + (s.unit ? ' ' + s.unit : ''));
    },

    resume() {
      rt.resume();
      out('agent ' + rt.mode() + (rt.why() ? ': ' + rt.why() : ''));
    },

    maintenance() {
      out('rebooting into maintenance: the agent and the watchdog stay off until the next reboot');
      rt.maintenance();
    },

    reboot() {
      out('rebooting');
      rt.restart('restart: reboot()');
    },
  };
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

/** Every error a change caused, on one line. */
const oneLine = (e: string): string => e.split('\n').join('; ');

export function configCommands(c: Ctx): Commands {
  const rt = c.rt;
  const p = rt.p;
  const out = c.out;
  const fail = c.fail;
  // What save() needs next: a sensor, device or output may still lack a required field.
  const toSave = (): string => {
    const m = missingKeys(rt.pending());
    return m.length ? 'still to set: ' + keyList(m) : 'save() to apply';
  };
  return {
    set(key: unknown, value: unknown) {
      if (typeof key !== 'string') return fail("set: the key must be a string, e.g. set('wifi.ssid', 'net')");
      const e = edit(rt, (ed) => ed.set(key, value));
      if (e) return fail(oneLine(e));
      out(key + ' set; ' + toSave());
    },

    unset(key: unknown) {
      if (typeof key !== 'string') return fail("unset: the key must be a string, e.g. unset('sensor.temp')");
      const e = edit(rt, (ed) => ed.unset(key));
      if (e) return fail(oneLine(e));
      out(key + ' unset; ' + toSave());
    },

    importWifi() {
      // The only read of Kaluma's storage: on the board each one overruns
      // the C heap, so it happens when a person asks, never unattended.
      const ssid = p.kv.get('WIFI_SSID');
      if (!ssid) return fail('importWifi: no WIFI_SSID in storage; nothing changed');
      const pw = p.kv.get('WIFI_PASSWORD') || '';
      const e = edit(rt, (ed) => {
        const was = ed.pending().wifi.ssid;
        const bad = ed.set('wifi.ssid', ssid) || ed.set('wifi.password', pw);
        if (bad) ed.set('wifi.ssid', was);
        return bad;
      });
      if (e) return fail('importWifi: ' + e + '; nothing changed');
      out('wifi.ssid = ' + ssid + ', wifi.password = ' + formatValue(findField(SCALAR_FIELDS, 'password') as Field, pw) + '; save() to apply');
    },
  };
}

export function showCommands(c: Ctx): Commands {
  const rt = c.rt;
  const out = c.out;
  return {
    config() {
      for (const l of describeConfig(rt.config())) out(l);
      if (!rt.dirty()) return;
      // What save() would change, and what it still needs.
      out('save() would change (old -> new):');
      for (const l of changeLines(rt.config(), rt.pending())) out('  ' + l);
      const m = missingKeys(rt.pending());
      if (m.length) out('save() refuses until set: ' + keyList(m));
      out('(unsaved changes: type save() to apply them, discard() to drop them)');
    },
  };
}
