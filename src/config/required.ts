// What unsaved changes still lack before save(): an entry made a field at a
// time stays pending until each required field has a value.
import type { Field } from './schema';
import { DEVICE_FIELDS, OUTPUT_FIELDS, SENSOR_FIELDS, fieldName, propOf } from './schema';
import type { AgentConfig } from './types';

/** The keys of required fields that have no value yet, in the order of config(). */
export function missingKeys(c: AgentConfig): string[] {
  const out: string[] = [];
  const scan = (what: string, list: readonly object[], fields: readonly Field[]): void => {
    for (const e of list) {
      const o = e as Record<string, unknown>;
      // Checked entries have their defaults: a required field with none for the kind is what stays undefined.
      for (const f of fields) if (f.required_ && o[propOf(f)] === undefined) out.push(what + '.' + String(o.name) + '.' + fieldName(f));
    }
  };
  scan('sensor', c.sensors, SENSOR_FIELDS);
  scan('device', c.devices, DEVICE_FIELDS);
  scan('output', c.outputs, OUTPUT_FIELDS);
  return out;
}

/** Keys for one line: a key of the same entry as the one before it as '.field' ('device.d.pin, .format'). */
export function keyList(keys: string[]): string {
  let prev = '';
  return keys
    .map((k) => {
      const entry = k.slice(0, k.lastIndexOf('.'));
      const shown = entry === prev ? k.slice(entry.length) : k;
      prev = entry;
      return shown;
    })
    .join(', ');
}
