// The saved form holds only what differs from the defaults, so a default
// improved by an update reaches every board that never changed it.

import { formatValue } from './format';
import { DEVICE_FIELDS, OUTPUT_FIELDS, SCALAR_FIELDS, SENSOR_FIELDS, T, defaultOf, fieldName, holderOf, propOf } from './schema';
import type { Field } from './schema';
import type { AgentConfig, SensorKind } from './types';

export type Saved = Record<string, unknown>;
type Obj = Record<string, unknown>;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** A sensor, device or output: its name and the fields that differ from their defaults (a kind has none). */
function entryOf(o: Obj, fields: readonly Field[], kind?: SensorKind): Obj {
  const e: Obj = { name: o.name };
  for (const f of fields) {
    const v = o[propOf(f)];
    if (v === undefined || same(v, defaultOf(f, kind))) continue;
    // The console form of a filter chain is shorter and reads better in the file.
    e[propOf(f)] = f.type_ === T.Filters ? formatValue(f, v) : f.type_ === T.Names ? (v as string[]).slice() : v;
  }
  return e;
}

/** A fresh object (safe to change) that validateConfig turns back into `c`. */
export function toSaved(c: AgentConfig): Saved {
  const out: Saved = {};
  const top = c as unknown as Record<string, Obj>;
  for (const f of SCALAR_FIELDS) {
    const name = fieldName(f);
    const v = (holderOf(top, f) as Obj)[name];
    if (same(v, f.default_)) continue;
    const sec = f.key_.slice(0, f.key_.indexOf('.'));
    if (name === f.key_) out[name] = v;
    else ((out[sec] = out[sec] || {}) as Obj)[name] = v;
  }
  if (c.sensors.length > 0) out.sensors = c.sensors.map((s) => entryOf(s as unknown as Obj, SENSOR_FIELDS, s.kind));
  if (c.devices.length > 0) out.devices = c.devices.map((d) => entryOf(d as unknown as Obj, DEVICE_FIELDS));
  if (c.outputs.length > 0) out.outputs = c.outputs.map((d) => entryOf(d as unknown as Obj, OUTPUT_FIELDS));
  return out;
}
