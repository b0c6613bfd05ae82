// What a person reads at the console: current values one key per line with
// secrets masked, and help generated from the schema table. Lines stay within
// 80 columns so a serial terminal never wraps them.

import type { Field } from './schema';
import { DEVICE_FIELDS, OUTPUT_FIELDS, SCALAR_FIELDS, SCHEMA, SENSOR_FIELDS, fieldName, holderOf, propOf, ruleOf } from './schema';
import { FIELD_HELP } from './field-help';
import { formatValue } from './format';
import type { AgentConfig } from './types';

const WIDTH = 80;

const fit = (s: string): string => (s.length > WIDTH ? s.slice(0, WIDTH - 1) + '\u2026' : s);

/** One `key = value` line per setting; secrets masked. */
export function describeConfig(c: AgentConfig): string[] {
  const lines: string[] = [];
  const add = (key: string, f: Field, v: unknown): void => {
    if (v !== undefined) lines.push(fit(key + ' = ' + formatValue(f, v)));
  };
  const top = c as unknown as Record<string, Record<string, unknown>>;
  for (const f of SCALAR_FIELDS) add(f.k, f, (holderOf(top, f) as Record<string, unknown>)[fieldName(f)]);
  const entries = (what: string, list: readonly object[], fields: readonly Field[]): void => {
    for (const e of list) {
      const o = e as Record<string, unknown>;
      for (const f of fields) add(what + '.' + String(o.name) + '.' + fieldName(f), f, o[propOf(f)]);
    }
  };
  entries('sensor', c.sensors, SENSOR_FIELDS);
  entries('device', c.devices, DEVICE_FIELDS);
  entries('output', c.outputs, OUTPUT_FIELDS);
  return lines;
}

function defaultText(f: Field): string {
  const parts: string[] = [];
  if (f.D) {
    for (const k in f.D) parts.push(formatValue(f, f.D[k as keyof typeof f.D]) + ' (' + k + ')');
  }
  if (f.d !== undefined) parts.push(formatValue(f, f.d) + (f.D ? ' (other)' : ''));
  return parts.length > 0 ? '; default ' + parts.join(', ') : f.q ? '; required' : '';
}

/** Two lines per setting: key and purpose, then the rule and the default. */
export function helpLines(): string[] {
  const lines: string[] = [];
  for (const f of SCHEMA) {
    const key = f.k.replace('*', '<name>');
    const help = FIELD_HELP[f.k] || '';
    const head = key + ' '.repeat(Math.max(1, 24 - key.length)) + help;
    if (head.length <= WIDTH) lines.push(head);
    else lines.push(key, '    ' + help);
    lines.push(fit('    ' + ruleOf(f) + defaultText(f)));
  }
  return lines;
}
