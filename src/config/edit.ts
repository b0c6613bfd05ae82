// Console edits on a pending copy. Each change is validated with the whole
// configuration, so a change that breaks any rule changes nothing; only an
// entry made a field at a time may lack a required field until save().

import { keyList, missingKeys } from './required';
import type { Saved } from './saved';
import { toSaved } from './saved';
import type { Field } from './schema';
import { DEVICE_FIELDS, OUTPUT_FIELDS, SCALAR_FIELDS, SENSOR_FIELDS, T, defaultOf, fieldName, findField, propOf } from './schema';
import type { AgentConfig, SensorKind } from './types';
import { nameRule, num, printable, validateConfig } from './validate';

export interface ConfigEditor {
  /** Error lines (joined by '\n'), or undefined when the change was made. */
  set(key: string, value: unknown): string | undefined;
  /** A setting back to its default, or `sensor.<name>` / `device.<name>` / `output.<name>` removed. */
  unset(key: string): string | undefined;
  pending(): AgentConfig;
  /** True when the pending copy differs from the one the editor started with. */
  dirty(): boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Text typed at the console, turned into the type the setting holds. */
function coerce(f: Field, v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (f.type_ === T.Int || f.type_ === T.Number) {
    const n = num(v);
    return isFinite(n) ? n : v;
  }
  if (f.type_ === T.Bool) return v === 'true' ? true : v === 'false' ? false : v;
  return v;
}

const unknownKey = (key: string): string => key + ': unknown key (see help())';

/** unset() of `what`.`name` (a sensor, device or output: `list[i]`), or of its field `f`. */
function remove(raw: Saved, key: string, what: string, name: string, list: Obj[], i: number, f: Field | undefined): string | undefined {
  const at = what + '.' + name;
  const entry = list[i];
  if (!entry) return at + ': no such ' + what;
  if (f) {
    if (fieldName(f) === 'kind') return key + ': every ' + what + ' has a kind; unset ' + at + ' to remove it';
    // A required field with no default for the kind has nothing to go back to.
    if (f.required_ && defaultOf(f, entry.kind as SensorKind) === undefined) return key + ': required';
    delete entry[propOf(f)];
    return undefined;
  }
  // Devices carry sensors; nothing refers to a device or an output.
  const users = what === 'sensor' ? ((raw.devices || []) as Obj[]).filter((d) => (d.sensors as string[]).indexOf(name) >= 0) : [];
  if (users.length > 0) {
    const by = users.map((d) => d.name as string).join(', ');
    return at + ': device ' + by + ' still carries it; change device.' + ((users[0] as Obj).name as string) + '.sensors first';
  }
  list.splice(i, 1);
  return undefined;
}

/**
 * `current` is the running configuration; `pending`, the changes kept from
 * earlier commands (the editor is made anew for each console command).
 */
export function createConfigEditor(o: { current: AgentConfig; pending?: AgentConfig }): ConfigEditor {
  const started = JSON.stringify(toSaved(o.current));
  let pending = o.pending || o.current;

  // The entry a change gave whole ('device.d'): it must lack nothing.
  let whole = '';
  const apply = (change: (raw: Saved) => string | undefined): string | undefined => {
    const raw = toSaved(pending);
    whole = '';
    const e = change(raw);
    if (e) return e;
    const r = validateConfig(raw, true);
    if (!r.ok) return r.errors.join('\n');
    // Given whole, an entry is given complete: what it lacks, on one line.
    const lacks = whole ? missingKeys(r.config).filter((k) => k.indexOf(whole + '.') === 0) : [];
    if (lacks.length) return keyList(lacks) + ': required';
    pending = r.config;
    return undefined;
  };

  /** One set or unset: a top-level setting, a whole sensor/device/output entry, or one of its fields. */
  const edit = (key: string, value: unknown, removing: boolean): string | undefined =>
    apply((raw) => {
      // Keys are printable ASCII: any other is quoted escaped, and unknown.
      if (printable(key) !== key) return unknownKey(printable(key));
      const parts = key.split('.');
      const what = parts[0] as string;
      // set('wifi.ssid') alone is a slip, not a way to unset.
      const none = !removing && value === undefined ? key + ": no value given (to go back to the default: unset('" + key + "'))" : '';
      if (what !== 'sensor' && what !== 'device' && what !== 'output') {
        const f = SCALAR_FIELDS.filter((x) => x.key_ === key)[0];
        if (!f) return unknownKey(key);
        if (none) return none;
        const sec = parts.length > 1 ? ((raw[what] = raw[what] || {}) as Obj) : raw;
        if (removing) delete sec[fieldName(f)];
        else sec[fieldName(f)] = coerce(f, value);
        return undefined;
      }
      const name = parts[1] as string;
      const at = what + '.' + name;
      if (parts.length < 2 || parts.length > 3) return unknownKey(key);
      const rule = nameRule(what, name);
      if (rule) return at + ': ' + rule;
      const fields = what === 'sensor' ? SENSOR_FIELDS : what === 'device' ? DEVICE_FIELDS : OUTPUT_FIELDS;
      const list = (raw[what + 's'] = raw[what + 's'] || []) as Obj[];
      const i = list.map((e) => e.name).indexOf(name);
      const entry = list[i];
      const f = parts.length === 3 ? findField(fields, parts[2] as string) : undefined;
      if (parts.length === 3 && !f) return unknownKey(key);

      if (removing) return remove(raw, key, what, name, list, i, f);

      if (!f) {
        // A whole entry at once: how a device or an output is created.
        if (!isObj(value)) {
          return (
            at +
            ': give all fields at once, e.g. ' +
            (what === 'sensor'
              ? "{kind: 'analog', pin: 26}"
              : what === 'device'
                ? "{id: 1, pin: 1234, format: 'Value', sensors: 'temp'}"
                : "{kind: 'digital', pin: 16, sourceId: 7, sourcePin: 1234}")
          );
        }
        const fresh: Obj = { name };
        for (const k in value) {
          const g = findField(fields, k);
          if (!g) return at + '.' + printable(k) + ': unknown field';
          fresh[propOf(g)] = coerce(g, value[k]);
        }
        if (entry) list[i] = fresh;
        else list.push(fresh);
        whole = at;
        return undefined;
      }
      if (none) return none;
      const v = coerce(f, value);
      const isKind = what === 'sensor' && fieldName(f) === 'kind';
      if (!entry && !isKind) {
        // A sensor from its kind; a device or an output whole.
        const form = "', {" + fields.filter((g) => g.required_).map(fieldName).join(', ') + '})';
        return at + ': no such ' + what + '; create it with set(' + "'" + at + (what === 'sensor' ? ".kind', ...)" : form);
      }
      const target = entry || { name };
      if (!entry) list.push(target);
      target[propOf(f)] = v;
      // The internal sensor has one pin; a new sensor has none until set:
      // a guessed pin would be saved unseen.
      if (isKind && v === 'temperature') delete target.pin;
      return undefined;
    });

  return {
    set: (key, value) => edit(key, value, false),
    unset: (key) => edit(key, undefined, true),
    pending: () => pending,
    dirty: () => JSON.stringify(toSaved(pending)) !== started,
  };
}
