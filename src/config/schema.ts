// The one table behind configuration: defaults, validation rules and secret
// masking all read it, so a new setting is one new row here (and its help
// text in field-help.ts, cold code that only help('keys') loads).
// Keys are what a person types at the console; '*' stands for the name of a
// sensor or device entry.

import { DEFAULT_BOARD } from '../board';
import type { SensorKind } from './types';

export type FieldType = 'string' | 'int' | 'number' | 'bool' | 'enum' | 'url' | 'names' | 'points' | 'filters';

// Short property names: the cold modules name them hundreds of times, and a
// one-letter name is one the resident program holds already (its minified
// variables), so it costs no entry in a cold module's string table and reads
// as `f.t` instead of a table lookup (scripts/cold-strings.ts).
export interface Field {
  key: string;
  /** Type. */
  t: FieldType;
  /** Default value; undefined with `q` (required) means the entry must give it. */
  d?: unknown;
  /** Defaults that depend on the sensor kind (win over `d`). */
  D?: { [k in SensorKind]?: unknown };
  /** Minimum and maximum: number range, or string length range (characters, or bytes with `b`). */
  n?: number;
  x?: number;
  /** An int that also accepts 0 as "off" below the minimum. */
  z?: boolean;
  /** A string's length counts UTF-8 bytes. */
  b?: boolean;
  /** The values of an enum. */
  v?: readonly string[];
  /** Pattern a non-empty string must match. */
  p?: RegExp;
  /** The rule as shown in errors, when the generated wording would not say it. */
  r?: string;
  /** Secret: masked wherever it is shown. */
  s?: boolean;
  /** Required. */
  q?: boolean;
  /** Sensor fields that apply only to some kinds. */
  K?: readonly SensorKind[];
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

export const SCHEMA: readonly Field[] = [
  { key: 'board', t: 'enum', v: BOARD_NAMES, d: DEFAULT_BOARD },
  { key: 'wifi.ssid', t: 'string', x: 32, b: true, d: '' },
  {
    key: 'wifi.password',
    t: 'string',
    n: 8,
    x: 63,
    d: '',
    s: true,
    r: '8-63 characters, or empty for an open network',
  },
  { key: 'service.url', t: 'url', d: '', r: 'http://host[:port][/path], or empty when unset' },
  {
    key: 'service.apiKey',
    t: 'string',
    p: /^[A-Za-z0-9_-]{8,128}$/,
    d: '',
    s: true,
    r: '8-128 characters of A-Z a-z 0-9 _ -, or empty when unset',
  },
  { key: 'agent.outboxBytes', t: 'int', n: 8192, x: 1048576, d: 196608 },
  { key: 'agent.backoffBaseMs', t: 'int', n: 100, x: 60000, d: 2000 },
  { key: 'agent.backoffCapMs', t: 'int', n: 1000, x: 3600000, d: 300000 },
  { key: 'agent.watchdog', t: 'bool', d: true },
  { key: 'agent.requestTimeoutMs', t: 'int', n: 1000, x: 60000, d: 15000 },
  { key: 'agent.maxResponseBytes', t: 'int', n: 1024, x: 32768, d: 8192 },
  {
    key: 'agent.lkgRevertMs',
    t: 'int',
    n: 60000,
    x: 86400000,
    z: true,
    d: 1800000,
  },
  { key: 'agent.heapFloorBytes', t: 'int', n: 4096, x: 131072, z: true, d: 16384 },
  { key: 'agent.safeModeBoots', t: 'int', n: 2, x: 50, d: 5 },
  { key: 'agent.radioOffBetweenUploads', t: 'bool', d: false },

  { key: 'sensor.*.kind', t: 'enum', v: SENSOR_KINDS, q: true },
  { key: 'sensor.*.pin', t: 'int', n: 0, x: 30, D: { temperature: 30 }, q: true },
  { key: 'sensor.*.intervalMs', t: 'int', n: 1000, x: 86400000, d: 60000 },
  { key: 'sensor.*.unit', t: 'string', x: 8, d: '', D: { temperature: 'C', analog: 'V' } },
  {
    key: 'sensor.*.filters',
    t: 'filters',
    d: [],
    r: 'average:n median:n ewma:a clamp:lo:hi delta:d:ms throttle:ms',
  },
  { key: 'sensor.*.pull', t: 'enum', v: ['up', 'down', 'none'], D: { digital: 'none', counter: 'up' }, K: ['digital', 'counter'] },
  { key: 'sensor.*.invert', t: 'bool', d: false, K: ['digital'] },
  { key: 'sensor.*.vrefV', t: 'number', n: 1, x: 5.5, d: 3.3, K: ['analog'] },
  { key: 'sensor.*.scale', t: 'number', d: 1, K: ['analog'] },
  { key: 'sensor.*.offset', t: 'number', d: 0, K: ['analog'] },
  { key: 'sensor.*.points', t: 'points', r: 'volts:value,volts:value with different volts', K: ['analog'] },
  { key: 'sensor.*.oversample', t: 'int', n: 1, x: 64, D: { analog: 1, temperature: 8 }, K: ['analog', 'temperature'] },
  { key: 'sensor.*.offsetC', t: 'number', n: -20, x: 20, d: 0, K: ['temperature'] },
  { key: 'sensor.*.pollMs', t: 'int', n: 5, x: 1000, d: 10, K: ['counter'] },

  { key: 'device.*.id', P: 'deviceId', t: 'int', n: 1, x: MAX_ID, q: true },
  { key: 'device.*.pin', P: 'devicePin', t: 'int', n: 0, x: MAX_ID, q: true },
  { key: 'device.*.format', t: 'enum', v: ['Value', 'JSON', 'XML'], q: true },
  { key: 'device.*.sensors', t: 'names', r: 'comma-separated sensor names', q: true },
  { key: 'device.*.decimals', t: 'int', n: 0, x: 6, d: 2 },
  { key: 'device.*.batch', t: 'int', n: 1, x: 20, d: 1 },
];

/** The part after the last dot: the field name inside its section or entry. */
export const fieldName = (f: Field): string => f.key.slice(f.key.lastIndexOf('.') + 1);
/** The property in saved JSON and in the validated config. */
export const propOf = (f: Field): string => f.P || fieldName(f);

export const SCALAR_FIELDS = /* @__PURE__ */ SCHEMA.filter((f) => f.key.indexOf('*') < 0);
export const SENSOR_FIELDS = /* @__PURE__ */ SCHEMA.filter((f) => f.key.indexOf('sensor.*.') === 0);
export const DEVICE_FIELDS = /* @__PURE__ */ SCHEMA.filter((f) => f.key.indexOf('device.*.') === 0);

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
    case 'int':
      return (f.z ? '0 (off) or a whole number' : 'must be a whole number') + range;
    case 'number':
      return f.n === undefined ? 'must be a finite number' : 'must be a number' + range;
    case 'bool':
      return 'must be true or false';
    case 'enum':
      return 'must be one of ' + (f.v || []).join(', ');
    case 'string':
      return (f.n ? f.n + '-' : 'at most ') + f.x + (f.b ? ' bytes (UTF-8)' : ' characters');
    default:
      return 'invalid';
  }
}

/** First 4 characters and the length; short (invalid) secrets show none of their characters. */
export function mask(secret: string): string {
  if (secret === '') return '(unset)';
  return (secret.length >= 8 ? secret.slice(0, 4) : '') + '\u2026(' + secret.length + ')';
}
