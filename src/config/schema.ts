// The one table behind configuration: defaults, validation rules and secret
// masking all read it, so a new setting is one new row here (and its help
// text in field-help.ts, cold code that only help('keys') loads).
// Keys are what a person types at the console; '*' stands for the name of a
// sensor or device entry.

import { DEFAULT_BOARD } from '../board';
import type { SensorKind } from './types';

export type FieldType = 'string' | 'int' | 'number' | 'bool' | 'enum' | 'url' | 'names' | 'points' | 'filters';

export interface Field {
  key: string;
  type: FieldType;
  /** Default value; undefined with `required` means the entry must give it. */
  def?: unknown;
  /** Defaults that depend on the sensor kind (win over `def`). */
  kindDef?: { [k in SensorKind]?: unknown };
  /** Number range, or string length range (characters, or bytes with `bytes`). */
  min?: number;
  max?: number;
  /** An int that also accepts 0 as "off" below `min`. */
  zeroOff?: boolean;
  bytes?: boolean;
  values?: readonly string[];
  pattern?: RegExp;
  /** The rule as shown in errors, when the generated wording would not say it. */
  rule?: string;
  secret?: boolean;
  required?: boolean;
  /** Sensor fields that apply only to some kinds. */
  kinds?: readonly SensorKind[];
  /** Property name in the saved JSON when it differs from the key's last part. */
  prop?: string;
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
  { key: 'board', type: 'enum', values: BOARD_NAMES, def: DEFAULT_BOARD },
  { key: 'wifi.ssid', type: 'string', max: 32, bytes: true, def: '' },
  {
    key: 'wifi.password',
    type: 'string',
    min: 8,
    max: 63,
    def: '',
    secret: true,
    rule: '8-63 characters, or empty for an open network',
  },
  { key: 'service.url', type: 'url', def: '', rule: 'http://host[:port][/path], or empty when unset' },
  {
    key: 'service.apiKey',
    type: 'string',
    pattern: /^[A-Za-z0-9_-]{8,128}$/,
    def: '',
    secret: true,
    rule: '8-128 characters of A-Z a-z 0-9 _ -, or empty when unset',
  },
  { key: 'agent.outboxBytes', type: 'int', min: 8192, max: 1048576, def: 196608 },
  { key: 'agent.backoffBaseMs', type: 'int', min: 100, max: 60000, def: 2000 },
  { key: 'agent.backoffCapMs', type: 'int', min: 1000, max: 3600000, def: 300000 },
  { key: 'agent.watchdog', type: 'bool', def: true },
  { key: 'agent.requestTimeoutMs', type: 'int', min: 1000, max: 60000, def: 15000 },
  { key: 'agent.maxResponseBytes', type: 'int', min: 1024, max: 32768, def: 8192 },
  {
    key: 'agent.lkgRevertMs',
    type: 'int',
    min: 60000,
    max: 86400000,
    zeroOff: true,
    def: 1800000,
  },
  { key: 'agent.heapFloorBytes', type: 'int', min: 4096, max: 131072, zeroOff: true, def: 16384 },
  { key: 'agent.safeModeBoots', type: 'int', min: 2, max: 50, def: 5 },
  { key: 'agent.radioOffBetweenUploads', type: 'bool', def: false },

  { key: 'sensor.*.kind', type: 'enum', values: SENSOR_KINDS, required: true },
  { key: 'sensor.*.pin', type: 'int', min: 0, max: 30, kindDef: { temperature: 30 }, required: true },
  { key: 'sensor.*.intervalMs', type: 'int', min: 1000, max: 86400000, def: 60000 },
  { key: 'sensor.*.unit', type: 'string', max: 8, def: '', kindDef: { temperature: 'C', analog: 'V' } },
  {
    key: 'sensor.*.filters',
    type: 'filters',
    def: [],
    rule: 'average:n median:n ewma:a clamp:lo:hi delta:d:ms throttle:ms',
  },
  { key: 'sensor.*.pull', type: 'enum', values: ['up', 'down', 'none'], kindDef: { digital: 'none', counter: 'up' }, kinds: ['digital', 'counter'] },
  { key: 'sensor.*.invert', type: 'bool', def: false, kinds: ['digital'] },
  { key: 'sensor.*.vrefV', type: 'number', min: 1, max: 5.5, def: 3.3, kinds: ['analog'] },
  { key: 'sensor.*.scale', type: 'number', def: 1, kinds: ['analog'] },
  { key: 'sensor.*.offset', type: 'number', def: 0, kinds: ['analog'] },
  { key: 'sensor.*.points', type: 'points', rule: 'volts:value,volts:value with different volts', kinds: ['analog'] },
  { key: 'sensor.*.oversample', type: 'int', min: 1, max: 64, kindDef: { analog: 1, temperature: 8 }, kinds: ['analog', 'temperature'] },
  { key: 'sensor.*.offsetC', type: 'number', min: -20, max: 20, def: 0, kinds: ['temperature'] },
  { key: 'sensor.*.pollMs', type: 'int', min: 5, max: 1000, def: 10, kinds: ['counter'] },

  { key: 'device.*.id', prop: 'deviceId', type: 'int', min: 1, max: MAX_ID, required: true },
  { key: 'device.*.pin', prop: 'devicePin', type: 'int', min: 0, max: MAX_ID, required: true },
  { key: 'device.*.format', type: 'enum', values: ['Value', 'JSON', 'XML'], required: true },
  { key: 'device.*.sensors', type: 'names', rule: 'comma-separated sensor names', required: true },
  { key: 'device.*.decimals', type: 'int', min: 0, max: 6, def: 2 },
  { key: 'device.*.batch', type: 'int', min: 1, max: 20, def: 1 },
];

/** The part after the last dot: the field name inside its section or entry. */
export const fieldName = (f: Field): string => f.key.slice(f.key.lastIndexOf('.') + 1);
/** The property in saved JSON and in the validated config. */
export const propOf = (f: Field): string => f.prop || fieldName(f);

export const SCALAR_FIELDS = /* @__PURE__ */ SCHEMA.filter((f) => f.key.indexOf('*') < 0);
export const SENSOR_FIELDS = /* @__PURE__ */ SCHEMA.filter((f) => f.key.indexOf('sensor.*.') === 0);
export const DEVICE_FIELDS = /* @__PURE__ */ SCHEMA.filter((f) => f.key.indexOf('device.*.') === 0);

export function findField(list: readonly Field[], name: string): Field | undefined {
  for (const f of list) if (fieldName(f) === name) return f;
  return undefined;
}

/** The default of a field for a sensor of `kind` (undefined when there is none). */
export function defaultOf(f: Field, kind?: SensorKind): unknown {
  if (f.kindDef && kind !== undefined && f.kindDef[kind] !== undefined) return f.kindDef[kind];
  return f.def;
}

/** The rule a value broke, worded for an error line after the key. */
export function ruleOf(f: Field): string {
  if (f.rule) return f.rule;
  const range = f.max === undefined ? ' >= ' + f.min : ' from ' + f.min + ' to ' + f.max;
  switch (f.type) {
    case 'int':
      return (f.zeroOff ? '0 (off) or a whole number' : 'must be a whole number') + range;
    case 'number':
      return f.min === undefined ? 'must be a finite number' : 'must be a number' + range;
    case 'bool':
      return 'must be true or false';
    case 'enum':
      return 'must be one of ' + (f.values || []).join(', ');
    case 'string':
      return (f.min ? f.min + '-' : 'at most ') + f.max + (f.bytes ? ' bytes (UTF-8)' : ' characters');
    default:
      return 'invalid';
  }
}

/** First 4 characters and the length; short (invalid) secrets show none of their characters. */
export function mask(secret: string): string {
  if (secret === '') return '(unset)';
  return (secret.length >= 8 ? secret.slice(0, 4) : '') + '\u2026(' + secret.length + ')';
}
