// Checks a whole configuration in its saved JSON form before anything uses
// it: every broken rule becomes one line naming its key, all reported at
// once, and nothing half-valid comes out. Rules come from the schema table;
// this file adds only what spans fields (pins, names, device contents).

import { checkPin, DEFAULT_BOARD, getBoard } from '../board';
import { parseBaseUrl } from '../service/url';
import { utf8Length } from '../service/utf8';
import type { Field } from './schema';
import {
  DEVICE_FIELDS,
  FILTER_PARAMS,
  MAX_DEVICES,
  MAX_FILTERS,
  MAX_SENSORS,
  NAME_PATTERN,
  SCALAR_FIELDS,
  SENSOR_FIELDS,
  defaultOf,
  fieldName,
  findField,
  propOf,
  ruleOf,
} from './schema';
import type { AgentConfig, FilterSpec, SensorKind } from './types';

export type Validated = { ok: true; config: AgentConfig } | { ok: false; errors: string[] };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A checked value in its normal form, or the error line. */
export type Checked = { v: unknown } | { e: string };

/** Parses a number typed as text; '' and ' ' are not 0. */
const num = (s: string): number => (s.trim() === '' ? NaN : Number(s));


const isWhole = (n: unknown, min: number, max: number): boolean =>
  typeof n === 'number' && Math.floor(n) === n && n >= min && n <= max;
const isNum = (n: unknown): n is number => typeof n === 'number' && isFinite(n);

/** The rule one filter breaks, or undefined. */
function filterRule(f: Obj): string | undefined {
  const t = f.type as string;
  switch (t) {
    case 'average':
    case 'median':
      return isWhole(f.window, 1, 32) ? undefined : t + ' window must be a whole number from 1 to 32';
    case 'ewma':
      return isNum(f.alpha) && f.alpha > 0 && f.alpha <= 1 ? undefined : 'ewma alpha must be in (0, 1]';
    case 'clamp':
      return isNum(f.min) && isNum(f.max) && f.min < f.max ? undefined : 'clamp min must be a number less than max';
    case 'delta':
      if (!(isNum(f.threshold) && f.threshold >= 0)) return 'delta threshold must be a number >= 0';
      return isWhole(f.heartbeatMs, 0, Infinity) ? undefined : 'delta heartbeatMs must be a whole number >= 0';
    default:
      return isWhole(f.minIntervalMs, 0, Infinity) ? undefined : 'throttle minIntervalMs must be a whole number >= 0';
  }
}

/** FilterSpec objects, or the console form 'median:5,ewma:0.3,clamp:-40:85'. */
function checkFilters(v: unknown): { v: FilterSpec[] } | { e: string } {
  let items: unknown[];
  if (typeof v === 'string') {
    items = [];
    for (const part of v.trim() === '' ? [] : v.split(',')) {
      const bits = part.trim().split(':');
      const type = bits[0] as string;
      const params = FILTER_PARAMS[type];
      if (!params) return { e: "unknown filter '" + type + "' (" + Object.keys(FILTER_PARAMS).join(', ') + ')' };
      if (bits.length !== params.length + 1) return { e: type + ' takes ' + [type].concat(params).join(':') };
      const o: Obj = { type };
      params.forEach((p, i) => (o[p] = num(bits[i + 1] as string)));
      items.push(o);
    }
  } else if (Array.isArray(v)) {
    items = v;
  } else {
    return { e: "must be a filter list like 'median:5,ewma:0.3'" };
  }
  if (items.length > MAX_FILTERS) return { e: 'at most ' + MAX_FILTERS + ' filters' };
  const out: FilterSpec[] = [];
  for (const item of items) {
    if (!isObj(item) || typeof item.type !== 'string' || !FILTER_PARAMS[item.type]) {
      return { e: 'each filter needs a type: ' + Object.keys(FILTER_PARAMS).join(', ') };
    }
    const params = FILTER_PARAMS[item.type] as string[];
    for (const k in item) {
      if (k !== 'type' && params.indexOf(k) < 0) return { e: item.type + ' has no parameter ' + k };
    }
    const rule = filterRule(item);
    if (rule) return { e: rule };
    const copy: Obj = { type: item.type };
    for (const p of params) copy[p] = item[p];
    out.push(copy as unknown as FilterSpec);
  }
  return { v: out };
}

/** [[volts, value], [volts, value]], or the console form '0.5:0,2.5:100'. */
function checkPoints(v: unknown): Checked {
  let pairs: unknown[] = [];
  if (typeof v === 'string') pairs = v.split(',').map((p) => p.split(':').map(num));
  else if (Array.isArray(v)) pairs = v;
  const ok = pairs.length === 2 && pairs.every((p) => Array.isArray(p) && p.length === 2 && isNum(p[0]) && isNum(p[1]));
  const p = pairs as number[][];
  if (!ok || (p[0] as number[])[0] === (p[1] as number[])[0]) {
    return { e: 'must be two points volts:value,volts:value with different volts' };
  }
  return { v: p.map((q) => [q[0], q[1]]) };
}

/** Checks one value against its schema row; `key` names it in the error. */
export function checkValue(f: Field, key: string, v: unknown): Checked {
  const r = checkRow(f, v);
  return 'e' in r ? { e: key + ': ' + r.e } : r;
}

function checkRow(f: Field, v: unknown): Checked {
  const bad: Checked = { e: ruleOf(f) };
  switch (f.t) {
    case 'int':
    case 'number':
      if (!isNum(v) || (f.t === 'int' && Math.floor(v) !== v)) return bad;
      if (f.z && v === 0) return { v };
      return (f.n !== undefined && v < f.n) || (f.x !== undefined && v > f.x) ? bad : { v };
    case 'bool':
      return typeof v === 'boolean' ? { v } : bad;
    case 'enum':
      return typeof v === 'string' && (f.v || []).indexOf(v) >= 0 ? { v } : bad;
    case 'string': {
      if (typeof v !== 'string') return bad;
      // Every string setting defaults to '' (unset), so '' is always allowed.
      if (v === '') return { v };
      const n = f.b ? utf8Length(v) : v.length;
      if ((f.n !== undefined && n < f.n) || (f.x !== undefined && n > f.x)) return bad;
      return f.p && !f.p.test(v) ? bad : { v };
    }
    case 'url': {
      if (typeof v !== 'string') return { e: 'must be a URL like http://192.168.1.10:8080' };
      if (v.trim() === '') return { v: '' };
      const u = parseBaseUrl(v);
      return u.ok ? { v: v.trim() } : { e: u.error.replace(/^service\.url: /, '') };
    }
    case 'names': {
      const list = typeof v === 'string' ? (v.trim() === '' ? [] : v.split(',').map((s) => s.trim())) : v;
      if (!Array.isArray(list)) return { e: "must be sensor names like 'temp,hum'" };
      const out: string[] = [];
      for (const n of list) {
        if (typeof n !== 'string' || !NAME_PATTERN.test(n)) return { e: "'" + String(n) + "' is not a sensor name" };
        if (out.indexOf(n) >= 0) return { e: "sensor '" + n + "' listed twice" };
        out.push(n);
      }
      return { v: out };
    }
    case 'points':
      return checkPoints(v);
    default:
      return checkFilters(v);
  }
}

/** The rule a sensor or device name breaks, or undefined. */
export function nameRule(what: 'sensor' | 'device', name: unknown): string | undefined {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
    return 'a name is 1-16 of A-Z a-z 0-9 _ and does not start with a digit';
  }
  // Sensor names become XML element names, and XML reserves names starting with 'xml'.
  if (what === 'sensor' && /^xml/i.test(name)) return "a sensor name must not start with 'xml' (reserved in XML)";
  return undefined;
}

/** The value, its default when absent, or the default after recording the error. */
function take(f: Field, key: string, v: unknown, def: unknown, errors: string[]): unknown {
  if (v === undefined) {
    if (def === undefined && f.q) errors.push(key + ': required');
    return def;
  }
  const c = checkValue(f, key, v);
  if ('e' in c) {
    errors.push(c.e);
    return def;
  }
  return c.v;
}

/** The entries of `sensors` or `devices`, each with its checked name and error prefix. */
function entries(raw: Obj, what: 'sensor' | 'device', max: number, errors: string[]): Array<{ key: string; name: string; o: Obj }> {
  const list = raw[what + 's'];
  const out: Array<{ key: string; name: string; o: Obj }> = [];
  if (list === undefined) return out;
  if (!Array.isArray(list)) {
    errors.push(what + 's: must be a list');
    return out;
  }
  if (list.length > max) errors.push(what + 's: at most ' + max + ' ' + what + 's (got ' + list.length + ')');
  list.forEach((o: unknown, i) => {
    const at = what + 's[' + i + ']';
    if (!isObj(o)) return void errors.push(at + ': must be an object');
    const rule = nameRule(what, o.name);
    if (rule) return void errors.push(at + '.name: ' + rule);
    const name = o.name as string;
    const key = what + '.' + name;
    for (const e of out) if (e.name === name) return void errors.push(key + ': defined twice');
    out.push({ key, name, o });
  });
  return out;
}

const TOP = ['board', 'wifi', 'service', 'agent', 'sensors', 'devices'];

/** The saved JSON form (defaults filled in) to a checked AgentConfig, or every error. */
export function validateConfig(raw: unknown): Validated {
  if (!isObj(raw)) return { ok: false, errors: ['config: must be a JSON object'] };
  const errors: string[] = [];
  for (const k in raw) if (TOP.indexOf(k) < 0) errors.push(k + ': unknown key');
  for (const sec of ['wifi', 'service', 'agent']) {
    const s = raw[sec];
    if (s !== undefined && !isObj(s)) errors.push(sec + ': must be an object');
    if (isObj(s)) for (const k in s) if (!SCALAR_FIELDS.some((f) => f.key === sec + '.' + k)) errors.push(sec + '.' + k + ': unknown key');
  }

  const cfg: Obj = { board: '', wifi: {}, service: {}, agent: {} };
  for (const f of SCALAR_FIELDS) {
    const dot = f.key.indexOf('.');
    const src = dot < 0 ? raw : raw[f.key.slice(0, dot)];
    const dst = (dot < 0 ? cfg : cfg[f.key.slice(0, dot)]) as Obj;
    dst[fieldName(f)] = take(f, f.key, isObj(src) ? src[fieldName(f)] : undefined, f.d, errors);
  }
  const agent = cfg.agent as AgentConfig['agent'];
  const board = getBoard(cfg.board as string);
  // A known name with no data: a device build carries only the board it was built for.
  if (!board) errors.push('board: this build is for ' + DEFAULT_BOARD + '; flash the ' + String(cfg.board) + ' build (npm run build -- --board ' + String(cfg.board) + ')');
  if (agent.backoffBaseMs > agent.backoffCapMs) errors.push('agent.backoffCapMs: must not be below agent.backoffBaseMs');
  if (board && agent.outboxBytes > board.flash.fsBytes / 2) {
    errors.push('agent.outboxBytes: at most half the file system (' + board.flash.fsBytes / 2 + ' on ' + board.name + ')');
  }

  const sensors: Obj[] = [];
  const pinOwner: Record<string, string> = {};
  const sensorEntries = entries(raw, 'sensor', MAX_SENSORS, errors);
  for (const { key, name, o } of sensorEntries) {
    const kind = take(findField(SENSOR_FIELDS, 'kind') as Field, key + '.kind', o.kind, undefined, errors) as SensorKind | undefined;
    for (const k in o) {
      const f = findField(SENSOR_FIELDS, k);
      if (k === 'name') continue;
      if (!f) errors.push(key + '.' + k + ': unknown field');
      else if (kind && f.K && f.K.indexOf(kind) < 0) errors.push(key + '.' + k + ': only for kind ' + f.K.join(', '));
    }
    if (!kind) continue;
    const s: Obj = { name };
    for (const f of SENSOR_FIELDS) {
      if (f.K && f.K.indexOf(kind) < 0) continue;
      const v = take(f, key + '.' + fieldName(f), o[fieldName(f)], defaultOf(f, kind), errors);
      if (v !== undefined) s[fieldName(f)] = v;
    }
    const pin = s.pin as number | undefined;
    if (pin !== undefined && board) {
      const rule = checkPin(board, pin, kind);
      const owner = pinOwner[pin];
      if (rule) errors.push(key + '.pin: ' + rule);
      else if (owner) errors.push(key + '.pin: pin ' + pin + ' is already used by sensor ' + owner);
      else pinOwner[pin] = name;
    }
    sensors.push(s);
  }

  const devices: Obj[] = [];
  const idOwner: Record<string, string> = {};
  for (const { key, name, o } of entries(raw, 'device', MAX_DEVICES, errors)) {
    for (const k in o) {
      if (k !== 'name' && !DEVICE_FIELDS.some((f) => propOf(f) === k)) errors.push(key + '.' + k + ': unknown field');
    }
    const d: Obj = { name };
    for (const f of DEVICE_FIELDS) d[propOf(f)] = take(f, key + '.' + fieldName(f), o[propOf(f)], f.d, errors);
    const carried = d.sensors as string[] | undefined;
    if (carried) {
      for (const n of carried) {
        if (!sensorEntries.some((e) => e.name === n)) errors.push(key + ".sensors: unknown sensor '" + n + "'");
      }
      if (d.format === 'Value' && carried.length !== 1) {
        errors.push(key + '.sensors: a Value device carries exactly one sensor (got ' + carried.length + ')');
      } else if (carried.length === 0) {
        errors.push(key + '.sensors: list at least one sensor');
      }
    }
    if (d.format !== 'JSON' && (d.batch as number) > 1) errors.push(key + '.batch: only JSON devices batch samples; use 1');
    const id = d.deviceId as number | undefined;
    if (id !== undefined) {
      const owner = idOwner[id];
      if (owner) errors.push(key + '.id: id ' + id + ' is already used by device ' + owner);
      else idOwner[id] = name;
    }
    devices.push(d);
  }

  if (errors.length > 0) return { ok: false, errors };
  cfg.sensors = sensors;
  cfg.devices = devices;
  return { ok: true, config: cfg as unknown as AgentConfig };
}

export { defaultConfig, isConfigured } from './defaults';
