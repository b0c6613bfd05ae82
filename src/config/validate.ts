// Checks a whole saved configuration before anything uses it: every broken
// rule is one line naming its key, all at once, and nothing half-valid comes
// out. The schema gives the rules; this file adds those that span fields.

import { DEFAULT_BOARD, getBoard } from '../board';
import type { Board } from '../board';
import { addressesOf } from '../sensors/i2c/kinds';
import { checkPin } from './pins';
import { parseBaseUrl } from '../service/url';
import { utf8Length } from '../service/utf8';
import type { Field } from './schema';
import {
  DEVICE_FIELDS,
  FILTER_PARAMS,
  MAX_DEVICES,
  MAX_FILTERS,
  MAX_OUTPUTS,
  MAX_SENSORS,
  NAME_PATTERN,
  OUTPUT_FIELDS,
  SCALAR_FIELDS,
  SENSOR_FIELDS,
  T,
  defaultOf,
  hex,
  quantitiesOf,
  fieldName,
  findField,
  holderOf,
  propOf,
  ruleOf,
} from './schema';
import type { AgentConfig, FilterSpec, SensorKind } from './types';
import { i2cSdaOf } from './board-i2c';

export type Validated = { ok: true; config: AgentConfig } | { ok: false; errors: string[] };

type Obj = Record<string, unknown>;
const isList = Array.isArray;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !isList(v);

/** A checked value in its normal form, or the error line. */
export type Checked = { value_?: unknown; error_?: string };

const blank = (s: string): boolean => s.trim() === '';

/** A UTF-16 code unit as U+XXXX, to name a character an error line cannot show. */
const codeOf = (c: number): string => 'U+' + ('000' + c.toString(16).toUpperCase()).slice(-4);

/**
 * What every string from outside must be before its field's own rule: no
 * control character, no lone surrogate, printable ASCII where the field says.
 * A secret's line names none of its characters. Loops, not regular
 * expressions: a compiled pattern stays on the device's heap.
 */
export function textRule(f: Field, s: string): string | undefined {
  let rule = '';
  let i = 0;
  for (; i < s.length && !rule; i++) {
    const c = s.charCodeAt(i);
    const d = s.charCodeAt(i + 1);
    if (c < 0x20 || (c >= 0x7f && c < 0xa0)) rule = 'must not hold control characters';
    else if (f.ascii_ && c > 0x7e) rule = 'must be printable ASCII';
    // A high surrogate with its low one is one character; any other is half of one.
    else if (c >= 0xd800 && c <= 0xdfff) {
      if (c > 0xdbff || !(d >= 0xdc00 && d <= 0xdfff)) rule = 'must be valid text: no lone UTF-16 surrogate';
      else i++;
    }
  }
  if (!rule || f.secret_) return rule || undefined;
  return rule + ' (' + codeOf(s.charCodeAt(i - 1)) + ' at character ' + i + ')';
}

/** A key or value as an error line quotes it, so a bad input can neither garble the terminal nor flood it. */
export function printable(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const piece = c >= 0x20 && c < 0x7f ? s.charAt(i) : '\\u' + codeOf(c).slice(2);
    const n = out.length + piece.length;
    if (n > 40 || (n === 40 && i < s.length - 1)) return out + '\u2026';
    out += piece;
  }
  return out;
}

/** An own property: a name typed as 'constructor' or 'toString' is not a filter. */
const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
/** Parses a number typed as text; '' and ' ' are not 0. */
export const num = (s: string): number => (blank(s) ? NaN : Number(s));
/** The parts of a comma-separated list typed as text; none when it is blank. */
const commaList = (s: string): string[] => (blank(s) ? [] : s.split(','));
const has = (list: readonly unknown[], x: unknown): boolean => list.indexOf(x) >= 0;
/** Below the row's minimum or above its maximum (a comparison with an absent bound is false). */
const outside = (f: Field, n: number): boolean => n < (f.min_ as number) || n > (f.max_ as number);

const isWhole = (n: unknown, min: number, max: number): boolean =>
  typeof n === 'number' && Math.floor(n) === n && n >= min && n <= max;
const isNum = (n: unknown): n is number => typeof n === 'number' && isFinite(n);

const wholeFrom0 = (n: unknown): boolean => isWhole(n, 0, Infinity);
/** What each filter parameter must be: the test, and its wording after "<type> <param> must be". */
const PARAM_RULES: Record<string, [(n: unknown, f: Obj) => boolean, string]> = {
  window: [(n) => isWhole(n, 1, 32), 'a whole number from 1 to 32'],
  alpha: [(n) => isNum(n) && n > 0 && n <= 1, 'in (0, 1]'],
  min: [(n, f) => isNum(n) && isNum(f.max) && n < f.max, 'a number less than max'],
  threshold: [(n) => isNum(n) && n >= 0, 'a number >= 0'],
  heartbeatMs: [wholeFrom0, 'a whole number >= 0'],
  minIntervalMs: [wholeFrom0, 'a whole number >= 0'],
};

/** The rule one filter breaks, or undefined. */
function filterRule(f: Obj, params: string[]): string | undefined {
  for (const p of params) {
    const r = PARAM_RULES[p];
    if (r && !r[0](f[p], f)) return (f.type as string) + ' ' + p + ' must be ' + r[1];
  }
  return undefined;
}

const filterNames = (): string => Object.keys(FILTER_PARAMS).join(', ');

/** FilterSpec objects, or the console form 'median:5,ewma:0.3,clamp:-40:85'. */
function checkFilters(v: unknown): Checked {
  let items: unknown[];
  if (typeof v === 'string') {
    items = [];
    for (const part of commaList(v)) {
      const bits = part.trim().split(':');
      const type = bits[0] as string;
      const params = own(FILTER_PARAMS, type) ? FILTER_PARAMS[type] : undefined;
      if (!params) return { error_: "unknown filter '" + printable(type) + "' (" + filterNames() + ')' };
      if (bits.length !== params.length + 1) return { error_: type + ' takes ' + [type].concat(params).join(':') };
      const o: Obj = { type };
      params.forEach((p, i) => (o[p] = num(bits[i + 1] as string)));
      items.push(o);
    }
  } else if (isList(v)) {
    items = v;
  } else {
    return { error_: "must be a filter list like 'median:5,ewma:0.3'" };
  }
  if (items.length > MAX_FILTERS) return { error_: 'at most ' + MAX_FILTERS + ' filters' };
  const out: FilterSpec[] = [];
  for (const item of items) {
    const type = isObj(item) ? item.type : undefined;
    const params = typeof type === 'string' && own(FILTER_PARAMS, type) ? FILTER_PARAMS[type] : undefined;
    if (!params) return { error_: 'each filter needs a type: ' + filterNames() };
    const o = item as Obj;
    for (const k in o) {
      if (k !== 'type' && !has(params, k)) return { error_: (type as string) + ' has no parameter ' + printable(k) };
    }
    const rule = filterRule(o, params);
    if (rule) return { error_: rule };
    const copy: Obj = { type };
    for (const p of params) copy[p] = o[p];
    out.push(copy as unknown as FilterSpec);
  }
  return { value_: out };
}

/** [[volts, value], [volts, value]], or the console form '0.5:0,2.5:100'. */
function checkPoints(f: Field, v: unknown): Checked {
  let pairs: unknown[] = [];
  if (typeof v === 'string') pairs = v.split(',').map((p) => p.split(':').map(num));
  else if (isList(v)) pairs = v;
  const ok = pairs.length === 2 && pairs.every((p) => isList(p) && p.length === 2 && isNum(p[0]) && isNum(p[1]));
  const p = pairs as number[][];
  if (!ok || (p[0] as number[])[0] === (p[1] as number[])[0]) {
    // The row's rule: 'volts:value,volts:value with different volts'.
    return { error_: 'must be two points ' + ruleOf(f) };
  }
  return { value_: p.map((q) => [q[0], q[1]]) };
}

/** Checks one value against its schema row; `key` names it in the error. */
export function checkValue(f: Field, key: string, v: unknown): Checked {
  const r = checkRow(f, v);
  return r.error_ === undefined ? r : { error_: key + ': ' + r.error_ };
}

function checkRow(f: Field, v: unknown): Checked {
  const bad: Checked = { error_: ruleOf(f) };
  const text = typeof v === 'string' ? textRule(f, v) : undefined;
  if (text) return { error_: text };
  switch (f.type_) {
    case T.Int:
    case T.Number:
      if (!isNum(v) || (f.type_ === T.Int && Math.floor(v) !== v)) return bad;
      if (f.zeroOff_ && v === 0) return { value_: v };
      return outside(f, v) ? bad : { value_: v };
    case T.Bool:
      return typeof v === 'boolean' ? { value_: v } : bad;
    case T.Enum:
      return typeof v === 'string' && has(f.choices_ || [], v) ? { value_: v } : bad;
    case T.String: {
      if (typeof v !== 'string') return bad;
      // Every string setting defaults to '' (unset), so '' is always allowed.
      if (v === '') return { value_: v };
      return outside(f, utf8Length(v)) || (f.pattern_ && !f.pattern_.test(v)) ? bad : { value_: v };
    }
    case T.Url: {
      if (typeof v !== 'string') return { error_: 'must be a URL like http://192.168.1.10:8080' };
      if (blank(v)) return { value_: '' };
      const u = parseBaseUrl(v);
      return u.ok ? { value_: v.trim() } : { error_: u.error.replace(/^service\.url: /, '') };
    }
    case T.Names: {
      const list = typeof v === 'string' ? commaList(v).map((s) => s.trim()) : v;
      if (!isList(list)) return { error_: "must be sensor names like 'temp,hum'" };
      const out: string[] = [];
      for (const n of list) {
        // A sensor's name, or one quantity of an I2C sensor: 'air.humidity'.
        const dot = typeof n === 'string' ? n.indexOf('.') : -1;
        if (typeof n !== 'string' || !NAME_PATTERN.test(dot < 0 ? n : n.slice(0, dot)) || (dot >= 0 && !/^[a-z]{1,16}$/.test(n.slice(dot + 1)))) {
          return { error_: "'" + printable(String(n)) + "' is not a sensor name (name, or name.quantity)" };
        }
        if (has(out, n)) return { error_: "sensor '" + n + "' listed twice" };
        out.push(n);
      }
      return { value_: out };
    }
    case T.Points:
      return checkPoints(f, v);
    default:
      return checkFilters(v);
  }
}

/** What an entry list holds: `sensors`, `devices` or `outputs`. */
type What = 'sensor' | 'device' | 'output';

/** The rule a sensor, device or output name breaks, or undefined. */
export function nameRule(what: What, name: unknown): string | undefined {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
    return 'a name is 1-16 of A-Z a-z 0-9 _ and does not start with a digit';
  }
  // Sensor names become XML element names, and XML reserves names starting with 'xml'.
  if (what === 'sensor' && /^xml/i.test(name)) return "a sensor name must not start with 'xml' (reserved in XML)";
  return undefined;
}

/** Records one error line; `missing` when the line is a required field with no value. */
type Err = (line: string, missing?: boolean) => void;
/** An entry of `sensors`, `devices` or `outputs`: its error prefix (`sensor.<name>`), its name, the object. */
type Entry = { key_: string; name_: string; raw_: Obj };

/** The value, its default when absent, or the default after recording the error. */
function take(f: Field, key: string, v: unknown, def: unknown, err: Err): unknown {
  if (v === undefined) {
    if (def === undefined && f.required_) err(key + ': required', true);
    return def;
  }
  const c = checkValue(f, key, v);
  if (c.error_ === undefined) return c.value_;
  err(c.error_);
  return def;
}

/** The entries of `sensors`, `devices` or `outputs`, each with its checked name and error prefix. */
function entries(raw: Obj, what: What, max: number, err: Err): Entry[] {
  const list = raw[what + 's'];
  const out: Entry[] = [];
  if (list === undefined) return out;
  if (!isList(list)) {
    err(what + 's: must be a list');
    return out;
  }
  const n = list.length;
  if (n > max) err(what + 's: at most ' + max + ' ' + what + 's (got ' + n + ')');
  list.forEach((o: unknown, i) => {
    const at = what + 's[' + i + ']';
    if (!isObj(o)) return void err(at + ': must be an object');
    const rule = nameRule(what, o.name);
    if (rule) return void err(at + '.name: ' + rule);
    const name = o.name as string;
    const key = what + '.' + name;
    for (const e of out) if (e.name_ === name) return void err(key + ': defined twice');
    out.push({ key_: key, name_: name, raw_: o });
  });
  return out;
}

/** A sensor or output field that one of `kind` does not have. */
const notFor = (f: Field, kind: string): boolean => !!f.kinds_ && !has(f.kinds_, kind);

/**
 * A sensor or output: its kind first, which decides the fields it may have
 * and their defaults; undefined when the kind is missing or wrong.
 */
function kindEntry(e: Entry, fields: readonly Field[], err: Err): Obj | undefined {
  const key = e.key_;
  const o = e.raw_;
  // Even a pending entry has its kind: without one it has no fields.
  const kind = take(findField(fields, 'kind') as Field, key + '.kind', o.kind, undefined, (l) => err(l)) as SensorKind | undefined;
  for (const k in o) {
    const f = findField(fields, k);
    if (k === 'name') continue;
    if (!f) err(key + '.' + printable(k) + ': unknown field');
    else if (kind && notFor(f, kind)) err(key + '.' + k + ': only for kind ' + (f.kinds_ as string[]).join(', '));
  }
  if (!kind) return undefined;
  const s: Obj = { name: e.name_ };
  for (const f of fields) {
    if (notFor(f, kind)) continue;
    const v = take(f, key + '.' + fieldName(f), o[fieldName(f)], defaultOf(f, kind), err);
    if (v !== undefined) s[fieldName(f)] = v;
  }
  return s;
}

const SECTIONS = ['wifi', 'service', 'agent', 'health', 'remote'];
const TOP = /* @__PURE__ */ ['board', 'sensors', 'devices', 'outputs'].concat(SECTIONS);

/** Claims the pin of a sensor or output for its key. */
type ClaimPin = (key: string, s: Obj, use: SensorKind | 'output', field?: string) => void;

/**
 * The saved form to a checked AgentConfig (defaults filled in), or every
 * error. `pending`: unsaved changes, where an entry may still lack a required field.
 */
export function validateConfig(raw: unknown, pending?: boolean): Validated {
  if (!isObj(raw)) return { ok: false, errors: ['config: must be a JSON object'] };
  const errors: string[] = [];
  const err: Err = (line, missing) => void (missing && pending ? 0 : errors.push(line));
  for (const k in raw) if (!has(TOP, k)) err(printable(k) + ': unknown key');
  const cfg: Obj = { board: '' };
  for (const sec of SECTIONS) {
    cfg[sec] = {};
    const s = raw[sec];
    if (s !== undefined && !isObj(s)) err(sec + ': must be an object');
    if (isObj(s)) for (const k in s) if (!SCALAR_FIELDS.some((f) => f.key_ === sec + '.' + k)) err(sec + '.' + printable(k) + ': unknown key');
  }
  for (const f of SCALAR_FIELDS) {
    const src = holderOf(raw, f);
    (holderOf(cfg, f) as Obj)[fieldName(f)] = take(f, f.key_, isObj(src) ? src[fieldName(f)] : undefined, f.default_, err);
  }
  const agent = cfg.agent as AgentConfig['agent'];
  const board = getBoard(cfg.board as string);
  // A known name with no data: a device build carries only the board it was built for.
  if (!board) err('board: this build is for ' + DEFAULT_BOARD + '; flash the ' + String(cfg.board) + ' build (npm run build -- --board ' + String(cfg.board) + ')');
  if (agent.backoffBaseMs > agent.backoffCapMs) err('agent.backoffCapMs: must not be below agent.backoffBaseMs');
  if (board && agent.outboxBytes > board.flash.fsBytes / 2) {
    err('agent.outboxBytes: at most half the file system (' + board.flash.fsBytes / 2 + ' on ' + board.name + ')');
  }

  // Sensors and outputs share the pins: each pin serves one of them, named
  // by its key with a space ('sensor door', 'output vent').
  const pinOwner: Record<string, string> = {};
  const claimPin: ClaimPin = (key, s, use, field = 'pin') => {
    const pin = s[field] as number | undefined;
    if (pin === undefined || !board) return;
    const rule = checkPin(board, pin, use);
    const owner = pinOwner[pin];
    if (rule) err(key + '.' + field + ': ' + rule);
    else if (owner) err(key + '.' + field + ': pin ' + pin + ' is already used by ' + owner);
    else pinOwner[pin] = key.replace('.', ' ') + (field === 'pin' ? '' : ' (I2C bus ' + String(s.bus) + ' ' + field.toUpperCase() + ')');
  };

  const sensors: Obj[] = [];
  const sensorEntries = entries(raw, 'sensor', MAX_SENSORS, err);
  for (const e of sensorEntries) {
    const s = kindEntry(e, SENSOR_FIELDS, err);
    if (!s) continue;
    if (quantitiesOf(s.kind as string)) checkI2c(e.key_, s, sensors, board, claimPin, err);
    else claimPin(e.key_, s, s.kind as SensorKind);
    sensors.push(s);
  }
  // Each device id's device name.
  const idOwner: Record<string, string> = {};
  const devices = checkDevices(raw, sensorEntries, sensors, idOwner, err);
  const health = cfg.health as AgentConfig['health'];
  const shared = health.id ? idOwner[health.id] : undefined;
  if (shared) err('health.id: id ' + health.id + ' is device ' + shared + "'s; reports need a JSON device of their own");
  // The configuration's device is read, never written: not one this board writes.
  const remote = (cfg.remote as AgentConfig['remote']).id;
  const writer = remote ? (idOwner[remote] ? 'device ' + idOwner[remote] + "'s" : remote === health.id ? 'health.id' : '') : '';
  if (writer) err('remote.id: id ' + remote + ' is ' + writer + ', which this board writes; the configuration needs a JSON device of its own');
  const outputs = checkOutputs(raw, claimPin, idOwner, health.id, err);

  if (errors.length > 0) return { ok: false, errors };
  // What an I2C part's bus has by default is left out of the checked config
  // (SCL is always the GPIO above SDA; bus 0, 100 kHz; no filters): each key
  // is heap for as long as the agent runs, and its readers know the defaults.
  for (const s of sensors) {
    if (!quantitiesOf(s.kind as string)) continue;
    delete s.scl;
    if (!(s.filters as unknown[]).length) delete s.filters;
    if (s.bus === 0) delete s.bus;
    if (s.freqHz === 100000) delete s.freqHz;
  }
  cfg.sensors = sensors;
  cfg.devices = devices;
  cfg.outputs = outputs;
  return { ok: true, config: cfg as unknown as AgentConfig };
}

/**
 * An I2C sensor: its bus's pins (the board's default pair when not given),
 * the same pins and clock as the bus's other parts, which claim the pins
 * once; an address its part can have, not taken on that bus.
 */
function checkI2c(key: string, s: Obj, before: Obj[], board: Board | undefined, claimPin: ClaimPin, err: Err): void {
  const bus = s.bus as number;
  const pins = board ? i2cSdaOf(board.name) : undefined;
  const sdas = pins ? (pins[bus] as number[]) : [];
  if (s.sda === undefined) s.sda = sdas[0];
  if (s.scl === undefined) s.scl = (s.sda as number) + 1;
  let first: Obj | undefined;
  for (const o of before) if (o.bus === bus && quantitiesOf(o.kind as string)) first = first || o;
  if (first) {
    // The bus is open once, on the first part's pins and clock.
    for (const k of ['sda', 'scl', 'freqHz']) {
      if (s[k] !== first[k]) err(key + '.' + k + ': bus ' + bus + ' has ' + k + ' ' + String(first[k]) + ' (sensor ' + String(first.name) + '); every part on a bus shares it');
    }
    for (const o of before) {
      if (o.bus === bus && o.address === s.address && quantitiesOf(o.kind as string)) err(key + '.address: ' + hex(s.address as number) + ' on bus ' + bus + ' is already sensor ' + String(o.name) + "'s");
    }
  } else if (board && sdas.indexOf(s.sda as number) < 0) {
    err(key + '.sda: bus ' + bus + ' can have its SDA on GP' + sdas.join(', GP'));
  } else if (s.scl !== (s.sda as number) + 1) {
    err(key + '.scl: must be GP' + ((s.sda as number) + 1) + ', the pin above SDA GP' + String(s.sda) + ' on bus ' + bus);
  } else {
    claimPin(key, s, 'digital', 'sda');
    claimPin(key, s, 'digital', 'scl');
  }
  const addresses = addressesOf(s.kind as string);
  if (addresses.indexOf(s.address as number) < 0) {
    err(key + '.address: a ' + String(s.kind) + ' answers at ' + addresses.map(hex).join(' or ') + ' (got ' + hex(s.address as number) + ')');
  }
}

/** How many readings a device's entry `n` stands for ('air' of a bme280: 3), or the rule it breaks. */
function readingsOf(n: string, sensors: Obj[]): number | string {
  const dot = n.indexOf('.');
  const base = dot < 0 ? n : n.slice(0, dot);
  let s: Obj | undefined;
  for (const o of sensors) if (o.name === base) s = o;
  // An unknown sensor is named once, by the caller's check.
  if (!s) return 1;
  const qs = quantitiesOf(s.kind as string);
  if (dot < 0) return qs ? qs.length : 1;
  const q = n.slice(dot + 1);
  if (!qs) return "sensor '" + base + "' has one reading; name it without '." + q + "'";
  return qs.indexOf(q) < 0 ? "sensor '" + base + "' (" + String(s.kind) + ") has no quantity '" + q + "' (" + qs.join(', ') + ')' : 1;
}

/** The devices, each carrying sensors that exist; `idOwner` gets each id's device name. */
function checkDevices(raw: Obj, sensorEntries: Entry[], sensors: Obj[], idOwner: Record<string, string>, err: Err): Obj[] {
  const devices: Obj[] = [];
  for (const { key_: key, name_: name, raw_: o } of entries(raw, 'device', MAX_DEVICES, err)) {
    for (const k in o) {
      if (k !== 'name' && !DEVICE_FIELDS.some((f) => propOf(f) === k)) err(key + '.' + printable(k) + ': unknown field');
    }
    const d: Obj = { name };
    for (const f of DEVICE_FIELDS) d[propOf(f)] = take(f, key + '.' + fieldName(f), o[propOf(f)], f.default_, err);
    const carried = d.sensors as string[] | undefined;
    if (carried) {
      let n = 0;
      for (const c of carried) {
        const base = c.split('.')[0] as string;
        if (!sensorEntries.some((e) => e.name_ === base)) err(key + ".sensors: unknown sensor '" + base + "'");
        else if (c !== base && carried.indexOf(base) >= 0) err(key + ".sensors: '" + c + "' is already in '" + base + "'");
        const r = readingsOf(c, sensors);
        if (typeof r === 'string') err(key + '.sensors: ' + r);
        else n += r;
      }
      if (d.format === 'Value' && n !== 1) {
        // One I2C sensor named whole: say how to name one of its quantities.
        let qs: string[] | undefined;
        for (const o of sensors) if (carried.length === 1 && o.name === carried[0]) qs = quantitiesOf(o.kind as string);
        err(key + '.sensors: a Value device carries exactly one reading (got ' + n + ')' + (qs ? "; name one quantity, e.g. '" + String(carried[0]) + '.' + String(qs[0]) + "'" : ''));
      } else if (carried.length === 0) {
        err(key + '.sensors: list at least one sensor');
      }
    }
    if (d.format !== 'JSON' && (d.batch as number) > 1) err(key + '.batch: only JSON devices batch samples; use 1');
    const id = d.deviceId as number | undefined;
    if (id !== undefined) {
      const owner = idOwner[id];
      if (owner) err(key + '.id: id ' + id + ' is already used by device ' + owner);
      else idOwner[id] = name;
    }
    devices.push(d);
  }
  return devices;
}

/** The outputs, none reading a device this board writes (`idOwner`'s devices, the health report's). */
function checkOutputs(raw: Obj, claimPin: ClaimPin, idOwner: Record<string, string>, healthId: number, err: Err): Obj[] {
  const outputs: Obj[] = [];
  for (const e of entries(raw, 'output', MAX_OUTPUTS, err)) {
    const key = e.key_;
    const s = kindEntry(e, OUTPUT_FIELDS, err);
    if (!s) continue;
    claimPin(key, s, 'output');
    if (s.kind === 'digital' && s.safe !== 0 && s.safe !== 1) err(key + '.safe: must be 0 or 1 for kind digital');
    // A device this board writes would have its own readings drive the output.
    const id = s.sourceId as number;
    const writer = idOwner[id] ? 'device ' + idOwner[id] + "'s" : id === healthId ? 'health.id' : undefined;
    if (writer) err(key + '.sourceId: id ' + id + ' is ' + writer + ', which this board writes; an output reads a control device of its own');
    outputs.push(s);
  }
  return outputs;
}

export { defaultConfig, isConfigured } from './defaults';
