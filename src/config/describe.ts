// Settings and help as the console shows them, within 80 columns so a serial
// terminal never wraps them.

import type { Field } from './schema';
import { DEVICE_FIELDS, OUTPUT_FIELDS, SCALAR_FIELDS, SCHEMA, SENSOR_FIELDS, fieldName, holderOf, propOf, ruleOf } from './schema';
import { FIELD_HELP } from './field-help';
import { formatValue } from './format';
import type { AgentConfig } from './types';

const WIDTH = 80;

const fit = (s: string): string => (s.length > WIDTH ? s.slice(0, WIDTH - 1) + '\u2026' : s);

/** Calls `add` with every setting of `c`: its key, its row, its value (undefined: none yet). */
function settings(c: AgentConfig, add: (key: string, f: Field, v: unknown) => void): void {
  const top = c as unknown as Record<string, Record<string, unknown>>;
  for (const f of SCALAR_FIELDS) add(f.key_, f, (holderOf(top, f) as Record<string, unknown>)[fieldName(f)]);
  const entries = (what: string, list: readonly object[], fields: readonly Field[]): void => {
    for (const e of list) {
      const o = e as Record<string, unknown>;
      for (const f of fields) add(what + '.' + String(o.name) + '.' + fieldName(f), f, o[propOf(f)]);
    }
  };
  entries('sensor', c.sensors, SENSOR_FIELDS);
  entries('device', c.devices, DEVICE_FIELDS);
  entries('output', c.outputs, OUTPUT_FIELDS);
}

/** One `key = value` line per setting; secrets masked. */
export function describeConfig(c: AgentConfig): string[] {
  const lines: string[] = [];
  settings(c, (key, f, v) => {
    if (v !== undefined) lines.push(fit(key + ' = ' + formatValue(f, v)));
  });
  return lines;
}

/**
 * What saving `to` over `from` changes: `key: old -> new` for every setting
 * that differs, secrets masked (a change the mask hides says so), '(none)'
 * for a setting one side has not.
 */
export function changeLines(from: AgentConfig, to: AgentConfig): string[] {
  const old: Record<string, unknown> = {};
  const lines: string[] = [];
  const shown = (f: Field, v: unknown): string => (v === undefined ? '(none)' : formatValue(f, v));
  settings(from, (key, f, v) => void (old[key] = v));
  settings(to, (key, f, v) => {
    const was = old[key];
    delete old[key];
    if (JSON.stringify(was) === JSON.stringify(v)) return;
    const a = shown(f, was);
    const b = shown(f, v);
    lines.push(key + ': ' + a + ' -> ' + b + (a === b ? ' (changed)' : ''));
  });
  // Settings of the sensors, devices and outputs that `to` no longer has.
  settings(from, (key, f, v) => {
    if (key in old && v !== undefined) lines.push(key + ': ' + formatValue(f, v) + ' -> (none)');
  });
  return lines;
}

function defaultText(f: Field): string {
  const parts: string[] = [];
  if (f.kindDefault_) {
    for (const k in f.kindDefault_) parts.push(formatValue(f, f.kindDefault_[k as keyof typeof f.kindDefault_]) + ' (' + k + ')');
  }
  if (f.default_ !== undefined) parts.push(formatValue(f, f.default_) + (f.kindDefault_ ? ' (other)' : ''));
  return parts.length > 0 ? '; default ' + parts.join(', ') : f.required_ ? '; required' : '';
}

/** Two lines per setting: key and purpose, then the rule and the default (three when they do not fit one). */
export function helpLines(): string[] {
  const lines: string[] = [];
  for (const f of SCHEMA) {
    const key = f.key_.replace('*', '<name>');
    const help = FIELD_HELP[f.key_] || '';
    const head = key + ' '.repeat(Math.max(1, 24 - key.length)) + help;
    if (head.length <= WIDTH) lines.push(head);
    else lines.push(key, '    ' + help);
    const rule = '    ' + ruleOf(f);
    const def = defaultText(f);
    if (rule.length + def.length <= WIDTH) lines.push(rule + def);
    else {
      wrap(lines, rule);
      wrap(lines, '    ' + def.slice(2));
    }
  }
  return lines;
}

/** `text` in lines of at most 80 columns, broken after commas, the later ones indented further. */
function wrap(lines: string[], text: string): void {
  let line = '';
  for (const piece of text.split(', ')) {
    const next = line ? line + ', ' + piece : piece;
    if (next.length > WIDTH - 1 && line) {
      lines.push(line + ',');
      line = '      ' + piece;
    } else line = next;
  }
  lines.push(fit(line));
}
