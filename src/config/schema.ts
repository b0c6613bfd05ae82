// The one table behind configuration: defaults, validation rules and secret
// masking all read it, so a new setting is one new row here (and its help
// text in field-help.ts, cold code that only help('keys') loads).
// Keys are what a person types at the console; '*' stands for the name of a
// sensor or device entry.

import { DEFAULT_BOARD } from '../board';
import type { SensorKind } from './types';

/** A setting's type: numbers, not names, so the table and every test of a type are short in the cold modules. */
export const enum T {
  Int,
  Number,
  Bool,
  Enum,
  String,
  Url,
  Names,
  Points,
  Filters,
}

// Short property names: the cold modules name them hundreds of times, and a
// one-letter name is one the resident program holds already (its minified
// variables), so it costs no entry in a cold module's string table and reads
// as `f.t` instead of a table lookup (scripts/build/cold-strings.ts).
export interface Field {
  /** The key as typed at the console ('*' for an entry's name). */
  k: string;
  /** Type. */
  t: T;
  /** Default value; undefined with `q` (required) means the entry must give it. */
  d?: unknown;
  /** Defaults that depend on the sensor kind (win over `d`). */
  D?: { [k in SensorKind]?: unknown };
  /** Minimum and maximum: number range, or a string's length range in UTF-8 bytes. */
  n?: number;
  x?: number;
  /** An int that also accepts 0 as "off" below the minimum. */
  z?: boolean;
  /** A string of printable ASCII characters only. */
  a?: boolean;
  /** The values of an enum. */
  v?: readonly string[];
  /** Pattern a non-empty string must match. */
  p?: RegExp;
  /** The rule as shown in errors, when the generated wording would not say it. */
  r?: string;
  /** Secret: masked wherever it is shown (an API key: its first characters and its length). */
  s?: boolean;
  /** A password: shown only as set or unset, never a character of it nor its length. */
  h?: boolean;
  /** Required. */
  q?: boolean;
  /** Sensor or output fields that apply only to some kinds. */
  K?: readonly string[];
  /** Property name in the saved JSON when it differs from the key's last part. */
  P?: string;
}

export const SENSOR_KINDS: readonly SensorKind[] = ['digital', 'analog', 'temperature', 'counter'];
export const BOARD_NAMES = ['pico-w', 'pico2-w'] as const;
/** Sensor names become JSON keys and XML element names. */
export const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,15}$/;
/** Bounded so the sampler and its filters fit the 180 KB heap. */
export const MAX_SENSORS = 8;
export const MAX_DEVICES = 4;
export const MAX_FILTERS = 6;

/** Parameters of each filter type, in the order of the console form 'clamp:min:max'. */
export const FILTER_PARAMS: Record<string, string[]> = {
  average: ['window'],
  median: ['window'],
  ewma: ['alpha'],
  clamp: ['min', 'max'],
  delta: ['threshold', 'heartbeatMs'],
  throttle: ['minIntervalMs'],
};

const MAX_ID = 2147483647;

/** Rows of one section or entry, their keys written without the prefix they share. */
const under = (prefix: string, rows: Field[]): Field[] => rows.map((f) => ((f.k = prefix + f.k), f));

const TOP: Field[] = [
  { k: 'board', t: T.Enum, v: BOARD_NAMES, d: DEFAULT_BOARD },
  { k: 'wifi.ssid', t: T.String, x: 32, d: '' },
  {
    // A WPA passphrase is 8-63 printable ASCII characters (IEEE 802.11i).
    k: 'wifi.password',
    t: T.String,
    n: 8,
    x: 63,
    a: true,
    d: '',
    s: true,
    h: true,
    r: '8-63 characters, or empty for an open network',
  },
  { k: 'service.url', t: T.Url, d: '', r: 'http://host[:port][/path], or empty when unset' },
  {
    k: 'service.apiKey',
    t: T.String,
    p: /^[A-Za-z0-9_-]{8,128}$/,
    d: '',
    s: true,
    r: '8-128 characters of A-Z a-z 0-9 _ -, or empty when unset',
  },
];

/** The settings outside sensors and devices, in their order in the file. */
export const SCALAR_FIELDS: readonly Field[] = /* @__PURE__ */ TOP.concat(
  /* @__PURE__ */ under('agent.', [
    { k: 'outboxBytes', t: T.Int, n: 8192, x: 1048576, d: 196608 },
    { k: 'backoffBaseMs', t: T.Int, n: 100, x: 60000, d: 2000 },
    { k: 'backoffCapMs', t: T.Int, n: 1000, x: 3600000, d: 300000 },
    { k: 'watchdog', t: T.Bool, d: true },
    { k: 'requestTimeoutMs', t: T.Int, n: 1000, x: 60000, d: 15000 },
    { k: 'maxResponseBytes', t: T.Int, n: 1024, x: 32768, d: 8192 },
    {
      k: 'lkgRevertMs',
      t: T.Int,
      n: 60000,
      x: 86400000,
      z: true,
      d: 1800000,
    },
    { k: 'heapFloorBytes', t: T.Int, n: 4096, x: 131072, z: true, d: 16384 },
    { k: 'safeModeBoots', t: T.Int, n: 2, x: 50, d: 5 },
    { k: 'radioOffBetweenUploads', t: T.Bool, d: false },
  ]),
  /* @__PURE__ */ under('health.', [
    { k: 'id', t: T.Int, n: 1, x: MAX_ID, z: true, d: 0 },
    { k: 'pin', t: T.Int, n: 0, x: MAX_ID, d: 0 },
    { k: 'intervalMs', t: T.Int, n: 60000, x: 86400000, d: 900000 },
  ]),
);

export const SENSOR_FIELDS = /* @__PURE__ */ under('sensor.*.', [
  { k: 'kind', t: T.Enum, v: SENSOR_KINDS, q: true },
  { k: 'pin', t: T.Int, n: 0, x: 30, D: { temperature: 30 }, q: true },
  { k: 'intervalMs', t: T.Int, n: 1000, x: 86400000, d: 60000 },
  { k: 'unit', t: T.String, x: 8, d: '', D: { temperature: 'C', analog: 'V' } },
  {
    k: 'filters',
    t: T.Filters,
    d: [],
    r: 'average:n median:n ewma:a clamp:lo:hi delta:d:ms throttle:ms',
  },
  { k: 'pull', t: T.Enum, v: ['up', 'down', 'none'], D: { digital: 'none', counter: 'up' }, K: ['digital', 'counter'] },
  { k: 'invert', t: T.Bool, d: false, K: ['digital'] },
  { k: 'vrefV', t: T.Number, n: 1, x: 5.5, d: 3.3, K: ['analog'] },
  { k: 'scale', t: T.Number, d: 1, K: ['analog'] },
  { k: 'offset', t: T.Number, d: 0, K: ['analog'] },
  { k: 'points', t: T.Points, r: 'volts:value,volts:value with different volts', K: ['analog'] },
  { k: 'oversample', t: T.Int, n: 1, x: 64, D: { analog: 1, temperature: 8 }, K: ['analog', 'temperature'] },
  { k: 'offsetC', t: T.Number, n: -20, x: 20, d: 0, K: ['temperature'] },
  { k: 'pollMs', t: T.Int, n: 5, x: 1000, d: 10, K: ['counter'] },
]);

export const DEVICE_FIELDS = /* @__PURE__ */ under('device.*.', [
  { k: 'id', P: 'deviceId', t: T.Int, n: 1, x: MAX_ID, q: true },
  { k: 'pin', P: 'devicePin', t: T.Int, n: 0, x: MAX_ID, q: true },
  { k: 'format', t: T.Enum, v: ['Value', 'JSON', 'XML'], q: true },
  { k: 'sensors', t: T.Names, r: 'comma-separated sensor names', q: true },
  { k: 'decimals', t: T.Int, n: 0, x: 6, d: 2 },
  { k: 'batch', t: T.Int, n: 1, x: 20, d: 1 },
]);

export const OUTPUT_KINDS = ['digital', 'pwm'] as const;
export const MAX_OUTPUTS = 4;

export const OUTPUT_FIELDS = /* @__PURE__ */ under('output.*.', [
  { k: 'kind', t: T.Enum, v: OUTPUT_KINDS, q: true },
  { k: 'pin', t: T.Int, n: 0, x: 29, q: true },
  { k: 'sourceId', t: T.Int, n: 1, x: MAX_ID, q: true },
  { k: 'sourcePin', t: T.Int, n: 0, x: MAX_ID, q: true },
  {
    k: 'field',
    t: T.String,
    x: 64,
    p: /^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+){0,3}$/,
    d: '',
    r: "empty for a Value device, or a JSON field like 'vent' or 'vents.north'",
  },
  { k: 'pollMs', t: T.Int, n: 5000, x: 86400000, d: 60000 },
  { k: 'safe', t: T.Number, n: 0, x: 1, d: 0 },
  { k: 'failsafeMs', t: T.Int, n: 10000, x: 86400000, d: 600000 },
  { k: 'invert', t: T.Bool, d: false, K: ['digital'] },
  { k: 'freqHz', t: T.Int, n: 10, x: 100000, d: 1000, K: ['pwm'] },
  { k: 'scale', t: T.Number, n: 0.000001, x: 1000000, d: 1, K: ['pwm'] },
]);

/** The part after the last dot: the field name inside its section or entry. */
export const fieldName = (f: Field): string => f.k.slice(f.k.lastIndexOf('.') + 1);
/** The property in saved JSON and in the validated config. */
export const propOf = (f: Field): string => f.P || fieldName(f);
/** Where a scalar setting lives in `top` (a config or its saved form): `top` itself, or its section. */
export const holderOf = (top: Record<string, unknown>, f: Field): unknown => {
  const dot = f.k.indexOf('.');
  return dot < 0 ? top : top[f.k.slice(0, dot)];
};

/** Every setting, in the order of the file and of help('keys'). */
export const SCHEMA: readonly Field[] = /* @__PURE__ */ SCALAR_FIELDS.concat(SENSOR_FIELDS, DEVICE_FIELDS, OUTPUT_FIELDS);

export function findField(list: readonly Field[], name: string): Field | undefined {
  for (const f of list) if (fieldName(f) === name) return f;
  return undefined;
}

/** The default of a field for a sensor of `kind` (undefined when there is none). */
export function defaultOf(f: Field, kind?: SensorKind): unknown {
  if (f.D && kind !== undefined && f.D[kind] !== undefined) return f.D[kind];
  return f.d;
}

/** The rule a value broke, worded for an error line after the key. */
export function ruleOf(f: Field): string {
  if (f.r) return f.r;
  const range = f.x === undefined ? ' >= ' + f.n : ' from ' + f.n + ' to ' + f.x;
  switch (f.t) {
    case T.Int:
      return (f.z ? '0 (off) or a whole number' : 'must be a whole number') + range;
    case T.Number:
      return f.n === undefined ? 'must be a finite number' : 'must be a number' + range;
    case T.Bool:
      return 'must be true or false';
    case T.Enum:
      return 'must be one of ' + (f.v || []).join(', ');
    default:
      // T.String: every other type has its rule in the table.
      return (f.n ? f.n + '-' : 'at most ') + f.x + ' bytes (UTF-8)';
  }
}

/** First 4 characters and the length; short (invalid) secrets show none of their characters. */
export function mask(secret: string): string {
  if (secret === '') return '(unset)';
  return (secret.length >= 8 ? secret.slice(0, 4) : '') + '\u2026(' + secret.length + ')';
}
