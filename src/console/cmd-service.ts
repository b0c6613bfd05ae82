// Commands that talk to the service beyond the agent's writes: one reading
// end to end with its read-back (cold module 'test'), and provisioning a key
// and a device (cold module 'provision').
import { provisionDevice } from '../agent/provision';
import type { DataFormat } from '../model';
import { DATA_FORMATS } from '../model';
import { createLink } from '../agent/link';
import { createHttpClient } from '../net/http';
import type { Runtime } from '../runtime';
import { createServiceClient, maskSecret } from '../service/client';
import type { ServiceClient } from '../service/client';
import { withReads } from '../service/reads';
import type { ServiceOps } from '../service/reads';
import type { FileStore } from '../ports/ports';
import { decodeUtf8 } from '../utf8';
import type { Commands, ConsoleRt, Ctx } from './shared';
import type { Settings } from './stubs';

/**
 * A service client on the pending configuration's URL with the link up,
 * for provisioning even before the agent can run (the agent's link when it
 * runs). Cold code: only this command needs it.
 */
/** What provision() reaches: the pending configuration (its key, URL and Wi-Fi), and the running agent's link. */
type ProvisionRt = ConsoleRt & Pick<Runtime, 'pending' | 'agent'>;

async function connect(rt: ProvisionRt): Promise<{ ok: true; client: ServiceClient } | { ok: false; error: string }> {
  const c = rt.pending();
  const p = rt.p;
  const http = createHttpClient({ sockets: p.sockets, timers: p.timers, timeoutMs: c.agent.requestTimeoutMs, maxResponseBytes: c.agent.maxResponseBytes });
  const made = createServiceClient({ http, baseUrl: c.service.url, log: p.log });
  if (!made.ok) return made;
  const a = rt.agent();
  const link = a ? a.link : createLink({ wifi: p.wifi, creds: () => c.wifi, system: p.system, log: p.log, abandoned: () => p.sockets.abandoned() });
  if (!(await link.ensureUp())) return { ok: false as const, error: 'Wi-Fi link not up (' + link.stats().lastStep + ')' };
  return made;
}

export function testCommands(c: Ctx<ConsoleRt & Pick<Runtime, 'agent' | 'why' | 'config'>>): Commands {
  const rt = c.rt;
  const out = c.out;
  const fail = c.fail;
  return {
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
      const cl = withReads(a.client);
      const write = dev.format === 'Value' ? cl.writeValue(ref, body) : dev.format === 'JSON' ? cl.writeJson(ref, body) : cl.writeXml(ref, body);
      return write.then((w) => {
        // A refusal that would hold the agent's device is, for this one write, a refusal: 'reject'.
        if (w.kind !== 'ok') return fail('test: write ' + (w.kind === 'hold' ? 'reject' : w.kind) + ': ' + w.reason);
        // The note starts with the status line ('HTTP 200 OK, text 13 bytes: ...').
        out('test: write ok (' + w.note + ')');
        const read = dev.format === 'Value' ? cl.readValue(ref) : dev.format === 'JSON' ? cl.readJson(ref) : cl.readXml(ref);
        return read.then((r) => {
          if (r.kind !== 'ok') return fail('test: read back ' + (r.kind === 'hold' ? 'reject' : r.kind) + ': ' + r.reason);
          const shown = typeof r.value === 'string' ? r.value : JSON.stringify(r.value);
          // Whole values compared: '210' read back after writing '21' differs.
          const wrote = dev.format === 'JSON' ? JSON.stringify(JSON.parse(body)) : body;
          out('test: read back ' + shown + (shown.trim() === wrote ? ' - matches' : ' - DIFFERS from what was written'));
        });
      });
    },
  };
}

/**
 * The configuration device's first document: the running configuration as
 * saved (config.json), without what is never taken from the service (wifi.*,
 * service.*, remote.*: src/agent/remote-apply.ts), so the first document is
 * the truth, not a blank. '' once written, else why not.
 */
function firstDocument(cl: ServiceOps, files: FileStore, dev: { apiKey: string; deviceId: number; devicePin: number }): Promise<string> {
  let saved: string | undefined;
  try {
    const b = files.read('config.json');
    saved = b && decodeUtf8(b);
  } catch {
    saved = undefined;
  }
  return cl.writeJson({ apiKey: dev.apiKey, deviceId: dev.deviceId, devicePin: dev.devicePin }, documentOf(saved)).then((w) => (w.kind === 'ok' ? '' : w.reason));
}

/** A saved configuration's text as a configuration device's document: without wifi.*, service.*, remote.* ('{}' for none or an unreadable one). */
export function documentOf(saved: string | undefined): string {
  let doc: Record<string, unknown> = {};
  try {
    if (saved) doc = JSON.parse(saved) as Record<string, unknown>;
  } catch {
    doc = {};
  }
  delete doc.wifi;
  delete doc.service;
  delete doc.remote;
  return JSON.stringify(doc);
}

export function provisionCommands(c: Ctx<ProvisionRt>): Commands {
  const rt = c.rt;
  const out = c.out;
  const fail = c.fail;
  return {
    provision(email: unknown, password: unknown, deviceName: unknown, format: unknown) {
      if (typeof email !== 'string' || email.indexOf('@') < 1) return fail('provision: email must be an address like me@example.com');
      if (typeof password !== 'string' || !password) return fail('provision: password must be a non-empty string');
      // 'output.<name>' makes the control device of that output (its source).
      const output = typeof deviceName === 'string' && deviceName.indexOf('output.') === 0 ? deviceName.slice(7) : undefined;
      if (output !== undefined) deviceName = output;
      if (typeof deviceName !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,15}$/.test(deviceName)) {
        return fail('provision: deviceName must be 1-16 letters, digits or _, not starting with a digit');
      }
      if (typeof format !== 'string' || DATA_FORMATS.indexOf(format as DataFormat) < 0) return fail('provision: format must be Value, JSON or XML');
      // The name 'health' makes the device for the agent's health reports (health.id, health.pin).
      const health = deviceName === 'health' && output === undefined;
      if (health && format !== 'JSON') return fail('provision: the health device is a JSON device');
      // The name 'remote' makes the configuration's device (remote.id, remote.pin), with the running configuration in it.
      const remote = deviceName === 'remote' && output === undefined;
      if (remote && format !== 'JSON') return fail('provision: the configuration device (remote) is a JSON device');
      if (output !== undefined) {
        const o = rt.pending().outputs.filter((x) => x.name === output)[0];
        if (!o) return fail('provision: no output ' + output + "; create it first, e.g. set('output." + output + "', {kind: 'digital', pin: 16, sourceId: 1, sourcePin: 0})");
        if (format === 'XML' || (format === 'JSON') !== !!o.field) return fail('provision: output ' + output + (o.field ? ' reads field ' + o.field + ' of a JSON device' : ' reads a Value device (its field is empty)'));
      }
      const names = rt.pending().sensors.map((s) => s.name);
      if (!names.length && !health && !remote && output === undefined) return fail("provision: add a sensor first, e.g. set('sensor.temp.kind', 'temperature')");
      const sensors = format === 'Value' ? [names[0] as string] : names;
      out('provision: creating ' + format + ' device ' + deviceName + ' for ' + email);
      const existing = rt.pending().service.apiKey;
      let cl: ServiceOps | undefined;
      return connect(rt)
        .then((cn) => {
          if (!cn.ok) return { ok: false as const, error: cn.error };
          cl = withReads(cn.client);
          return provisionDevice({ client: cl, email, password, deviceName, format: format as DataFormat, apiKey: existing || undefined });
        })
        .then((r) => (r.ok && remote && cl ? firstDocument(cl, rt.p.files, r).then((e) => ({ ...r, note: e })) : r))
        .then((r): Settings | undefined => {
          if (!r.ok) return void fail('provision: ' + r.error);
          out('provision: device ' + r.deviceId + ' (' + format + (health ? ', health reports' : remote ? ', this board\'s configuration' : output !== undefined ? ', the source of output ' + output : ', sensors ' + sensors.join(',')) + '), API key ' + maskSecret(r.apiKey));
          if (remote) {
            // Made either way: a device made and not set would be lost (its PIN is not shown).
            if (r.note) fail('provision: the running configuration was not written to device ' + r.deviceId + ' (' + r.note + '); its first read finds {}, which changes nothing');
            else out('provision: the running configuration (without wifi.*, service.*, remote.*) is its first document');
            return [['service.apiKey', r.apiKey], ['remote.id', r.deviceId], ['remote.pin', r.devicePin]];
          }
          if (output !== undefined) {
            return [
              ['service.apiKey', r.apiKey],
              ['output.' + output + '.sourceId', r.deviceId],
              ['output.' + output + '.sourcePin', r.devicePin],
            ];
          }
          // Set by set() once this module is let go: both at once need more
          // heap than a running agent leaves.
          return health
            ? [['service.apiKey', r.apiKey], ['health.id', r.deviceId], ['health.pin', r.devicePin]]
            : [
              ['service.apiKey', r.apiKey],
              ['device.' + deviceName, { id: r.deviceId, pin: r.devicePin, format, sensors: sensors.join(',') }],
            ];
        });
    },
  };
}
