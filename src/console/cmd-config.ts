// The everyday commands: the agent's state and restarts (cold module
// 'state'), the configuration shown (cold module 'show') and changed with
// the editor (cold module 'config').
import { crcHex, noteSource } from '../agent/remote-state';
import { changeLines, describeConfig } from '../config/describe';
import { formatValue } from '../config/format';
import { keyList, missingKeys } from '../config/required';
import type { Field } from '../config/schema';
import { SCALAR_FIELDS, findField } from '../config/schema';
import { UNITS, quantitiesOf } from '../sensors/i2c/kinds';
import { Q, S } from '../sensors/i2c/state';
import type { Runtime } from '../runtime';
import type { Commands, ConsoleRt, Ctx, Editing } from './shared';
import { statusLines } from './status';
import type { StatusRt } from './status';
import { edit } from './shared';

/** What status(), save(), discard(), sensors(), resume(), maintenance() and reboot() reach. */
export type StateRt = StatusRt & Pick<Runtime, 'dirty' | 'pending' | 'setPending' | 'apply' | 'resume' | 'restart'>;

export function stateCommands(c: Ctx<StateRt>): Commands {
  const rt = c.rt;
  const out = c.out;
  const fail = c.fail;
  return {
    status() {
      statusLines(rt, out);
    },

    save() {
      if (!rt.dirty()) return out('nothing to save');
      const e = rt.apply(rt.pending());
      if (e) return fail('save: ' + e);
      // Saved at the console: what the health report's configSource says of it.
      try {
        const saved = rt.p.files.read('config.json');
        if (saved) noteSource(rt.p.files, crcHex(saved), 'console');
      } catch {
        // Unnamed, it reads as written by flash.sh: nothing else depends on it.
      }
      out('saved; agent ' + rt.mode() + (rt.why() ? ': ' + rt.why() : ''));
    },

    discard() {
      if (!rt.dirty()) return out('nothing to discard: no unsaved changes');
      rt.setPending(undefined);
      out('unsaved changes dropped');
    },

    sensors() {
      const a = rt.agent();
      if (!a) return fail('sensors: the agent is not running (' + rt.why() + ')');
      const got = a.sampler.peek();
      // An I2C part is not read on demand (a conversion takes time): its last, with its age.
      const now = rt.p.clock.uptimeMs();
      if (!got.length && !a.i2c) out('no sensor gave a reading');
      for (const s of got) out(s.sensor + ' = ' + Math.round(s.value * 1000) / 1000 + (s.unit ? ' ' + s.unit : ''));
      for (const s of a.i2c || []) {
        const st = s.st_;
        const qs = quantitiesOf(st[S.Cfg].kind) as string[];
        for (let i = 0; i < qs.length; i++) {
          const v = st[S.Quantities + Q.Size * i + Q.Last];
          const q = qs[i] as string;
          if (typeof v === 'number' && v === v) out(s.name + '.' + q + ' = ' + Math.round(v * 1000) / 1000 + ' ' + String(UNITS[q]) + ' (read ' + Math.round((now - st[S.At]) / 1000) + ' s ago)');
        }
        const error = st[S.Error];
        if (error !== undefined) out(s.name + ': no reading now: ' + error);
        else if (!st[S.Reads]) out(s.name + ': no reading yet');
      }
    },

    resume() {
      rt.resume();
      out('agent ' + rt.mode() + (rt.why() ? ': ' + rt.why() : ''));
    },

    maintenance() {
      out('rebooting into maintenance: the agent and the watchdog stay off until the next reboot');
      // The flag the boot reads (src/runtime.ts, K.MaintenanceFile): one boot without agent and watchdog.
      try {
        rt.p.files.write('maintenance', new Uint8Array([49]));
      } catch (e) {
        rt.p.log.error('maintenance: ' + String(e) + '; not rebooting');
        try {
          rt.p.files.remove('maintenance');
        } catch {
          /* a half-written flag does not count: see the check at boot */
        }
        return;
      }
      rt.restart('restart: maintenance');
    },

    reboot() {
      out('rebooting');
      rt.restart('restart: reboot()');
    },
  };
}


/** Every error a change caused, on one line. */
const oneLine = (e: string): string => e.split('\n').join('; ');

export function configCommands(c: Ctx<ConsoleRt & Editing>): Commands {
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

export function showCommands(c: Ctx<ConsoleRt & Pick<Runtime, 'config' | 'pending' | 'dirty'>>): Commands {
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
