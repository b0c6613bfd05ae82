// The commands a person types at the serial console. Kaluma's REPL
// evaluates each line in the program's global scope, so every command is a
// global function: help(), status(), set('wifi.ssid', 'net'), ... Output is
// short lines that fit an 80-column terminal; secrets are always masked.
import { provisionDevice } from '../agent/provision';
import { mask } from '../config/schema';
import type { DataFormat } from '../model';
import { DATA_FORMATS } from '../model';
import type { Runtime } from '../runtime';
import { VERSION } from '../runtime';
import { maskSecret } from '../service/client';

const HELP = [
  'help()                 this list; help(\'keys\') lists every setting',
  'status()               uptime, Wi-Fi, deliveries, outbox, heap, errors',
  'config()               the running configuration (secrets masked)',
  "set(key, value)        change a setting, e.g. set('wifi.ssid', 'field-net')",
  "unset(key)             back to default; unset('sensor.x') removes sensor x",
  'save()                 save the changes and restart the agent on them',
  'discard()              drop unsaved changes',
  "importWifi()           Wi-Fi from Kaluma's WIFI_SSID/WIFI_PASSWORD keys",
  'sensors()              one live reading from every sensor',
  'test()                 one reading end to end, with the service\'s answer',
  "provision(email, password, deviceName, format)  make an API key and a",
  '                       device (format Value, JSON or XML) and set them',
  'resume()               leave safe mode and start the agent',
  'maintenance()          restart without agent and watchdog, before flashing',
  'reboot()               restart the board',
];

function ago(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return s + ' s';
  const m = Math.round(s / 60);
  if (m < 120) return m + ' min';
  return Math.floor(m / 60) + ' h ' + (m % 60) + ' min';
}

/** Lines longer than an 80-column terminal continue on indented lines, cut at a space. */
function wrap(s: string, print: (l: string) => void): void {
  let rest = s;
  while (rest.length > 79) {
    let cut = rest.lastIndexOf(' ', 79);
    if (cut < 20) cut = 79;
    print(rest.slice(0, cut));
    rest = '  ' + rest.slice(cut).replace(/^ +/, '');
  }
  print(rest);
}

/** Installs the console commands; returns them too (the host console and tests call them directly). */
export function installCommands(rt: Runtime): Record<string, (...a: unknown[]) => unknown> {
  const p = rt.p;
  const out = (l: string): void => wrap(l, (x) => p.log.info(x));
  let lastError = '';
  const fail = (l: string): void => {
    lastError = l;
    // Errors stay on one line, whole: they name the key and the rule.
    p.log.error(l);
  };

  const cmds: Record<string, (...a: unknown[]) => unknown> = {
    help(topic?: unknown) {
      const lines = topic === 'keys' ? rt.editor().help() : HELP;
      for (const l of lines) out(l);
    },

    status() {
      const now = p.clock.uptimeMs();
      const a = rt.agent();
      const q = rt.queue.stats();
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
        if (u.lastError) out('last err  ' + u.lastError);
        else if (s.lastError) out('last err  ' + s.lastError);
      }
      out('outbox    ' + q.depth + ' queued (' + q.bytes + ' B), dropped ' + q.dropped + ', rejected ' + q.rejected + (q.lastReject ? ' (' + q.lastReject + ')' : ''));
      const m = p.system.memory();
      if (m) out('heap      ' + m.heapUsed + ' of ' + m.heapTotal + ' B used, peak ' + m.heapPeak + ' B');
      out('safe mode ' + (rt.mode() === 'safe' ? 'YES: ' + rt.state.reason : 'no'));
      if (lastError) out('console   last error: ' + lastError);
    },

    config() {
      for (const l of rt.editor().describe(rt.config())) out(l);
      if (rt.editor().dirty()) out('(unsaved changes: type save() to apply them, discard() to drop them)');
    },

    set(key: unknown, value: unknown) {
      if (typeof key !== 'string') return fail("set: the key must be a string, e.g. set('wifi.ssid', 'net')");
      const e = rt.editor().set(key, value);
      if (e) return fail(e);
      out(key + ' set; save() to apply');
    },

    unset(key: unknown) {
      if (typeof key !== 'string') return fail("unset: the key must be a string, e.g. unset('sensor.temp')");
      const e = rt.editor().unset(key);
      if (e) return fail(e);
      out(key + ' unset; save() to apply');
    },

    save() {
      const ed = rt.editor();
      if (!ed.dirty()) return out('nothing to save');
      const e = rt.apply(ed.pending());
      if (e) return fail('save: ' + e);
      out('saved; agent ' + rt.mode() + (rt.why() ? ': ' + rt.why() : ''));
    },

    discard() {
      rt.discard();
      out('unsaved changes dropped');
    },

    importWifi() {
      // The only read of Kaluma's storage: on the board each one overruns
      // the C heap, so it happens when a person asks, never unattended.
      const ssid = p.kv.get('WIFI_SSID');
      if (!ssid) return fail('importWifi: no WIFI_SSID in storage; nothing changed');
      const pw = p.kv.get('WIFI_PASSWORD') || '';
      const ed = rt.editor();
      const was = ed.pending().wifi.ssid;
      const e = ed.set('wifi.ssid', ssid) || ed.set('wifi.password', pw);
      if (e) {
        ed.set('wifi.ssid', was);
        return fail('importWifi: ' + e + '; nothing changed');
      }
      out('wifi.ssid = ' + ssid + ', wifi.password = ' + mask(pw) + '; save() to apply');
    },

    sensors() {
      const a = rt.agent();
      if (!a) return fail('sensors: the agent is not running (' + rt.why() + ')');
      const got = a.sampler.peek();
      if (!got.length) out('no sensor gave a reading');
      for (const s of got) out(s.sensor + ' = ' + Math.round(s.value * 1000) / 1000 + (s.unit ? ' ' + s.unit : ''));
    },

    test() {
      const a = rt.agent();
      if (!a) return fail('test: the agent is not running (' + rt.why() + ')');
      const cfg = rt.config();
      const dev = cfg.devices[0];
      const reading = a.sampler.peek().filter((s) => dev && dev.sensors.indexOf(s.sensor) >= 0)[0];
      if (!dev || !reading) return fail('test: no reading from the first device\'s sensors');
      const ref = { apiKey: cfg.service.apiKey, deviceId: dev.deviceId, devicePin: dev.devicePin };
      const text = String(Math.round(reading.value * 100) / 100);
      const body = dev.format === 'Value' ? text : dev.format === 'JSON' ? '{"' + reading.sensor + '":' + text + ',"test":true}' : '<test><' + reading.sensor + '>' + text + '</' + reading.sensor + '></test>';
      out('test: writing ' + body + ' to device ' + dev.deviceId + ' (' + dev.format + ')');
      const c = a.client;
      const write = dev.format === 'Value' ? c.writeValue(ref, body) : dev.format === 'JSON' ? c.writeJson(ref, body) : c.writeXml(ref, body);
      void write.then((w) => {
        if (w.kind !== 'ok') return fail('test: write ' + w.kind + ': ' + w.reason);
        out('test: write ok (HTTP ' + w.status + ', ' + w.note + ')');
        const read = dev.format === 'Value' ? c.readValue(ref) : dev.format === 'JSON' ? c.readJson(ref) : c.readXml(ref);
        return read.then((r) => {
          if (r.kind !== 'ok') return fail('test: read back ' + r.kind + ': ' + r.reason);
          const shown = typeof r.value === 'string' ? r.value : JSON.stringify(r.value);
          // Whole values compared: '210' read back after writing '21' differs.
          const wrote = dev.format === 'JSON' ? JSON.stringify(JSON.parse(body)) : body;
          out('test: read back ' + shown + (shown.trim() === wrote ? ' - matches' : ' - DIFFERS from what was written'));
        });
      });
    },

    provision(email: unknown, password: unknown, deviceName: unknown, format: unknown) {
      if (typeof email !== 'string' || email.indexOf('@') < 1) return fail('provision: email must be an address like me@example.com');
      if (typeof password !== 'string' || !password) return fail('provision: password must be a non-empty string');
      if (typeof deviceName !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,15}$/.test(deviceName)) {
        return fail('provision: deviceName must be 1-16 letters, digits or _, not starting with a digit');
      }
      if (typeof format !== 'string' || DATA_FORMATS.indexOf(format as DataFormat) < 0) return fail('provision: format must be Value, JSON or XML');
      const names = rt.editor().pending().sensors.map((s) => s.name);
      if (!names.length) return fail("provision: add a sensor first, e.g. set('sensor.temp.kind', 'temperature')");
      const sensors = format === 'Value' ? [names[0] as string] : names;
      out('provision: creating ' + format + ' device ' + deviceName + ' for ' + email);
      const existing = rt.editor().pending().service.apiKey;
      void rt
        .connect()
        .then((c) =>
          c.ok
            ? provisionDevice({ client: c.client, email, password, deviceName, format: format as DataFormat, apiKey: existing || undefined })
            : { ok: false as const, error: c.error },
        )
        .then((r) => {
          if (!r.ok) return fail('provision: ' + r.error);
          const ed = rt.editor();
          const e = ed.set('service.apiKey', r.apiKey) || ed.set('device.' + deviceName, { id: r.deviceId, pin: r.devicePin, format, sensors: sensors.join(',') });
          if (e) return fail('provision: device ' + r.deviceId + ' was created but the config refused it: ' + e);
          out('provision: device ' + r.deviceId + ' (' + format + ', sensors ' + sensors.join(',') + '), API key ' + maskSecret(r.apiKey));
          out('provision: type save() to start delivering to it');
        });
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
      rt.stop();
      p.system.reboot();
    },
  };
  for (const name in cmds) p.console.expose(name, cmds[name] as (...a: unknown[]) => unknown);
  return cmds;
}
