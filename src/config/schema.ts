// The one table behind configuration (defaults, rules, masking): a new setting
// is one row here and its help text in field-help.ts.

import { DEFAULT_BOARD } from '../board';
import { I2C_KINDS, UNITS, addressesOf, quantitiesOf } from '../sensors/i2c/kinds';
export { hex, quantitiesOf } from '../sensors/i2c/kinds';
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

// Properties ending in '_' get short names from the build (scripts/build/mangle.ts);
// a row never leaves the program as JSON.
export interface Field {
  /** The key as typed at the console ('*' for an entry's name). */
  key_: string;
  type_: T;
  /** Default value; undefined with `required_` means the entry must give it. */
  default_?: unknown;
  /** Defaults that depend on the sensor kind (win over `default_`). */
  kindDefault_?: { [k in SensorKind]?: unknown };
  /** Minimum and maximum: number range, or a string's length range in UTF-8 bytes. */
  min_?: number;
  max_?: number;
  /** An int that also accepts 0 as "off" below the minimum. */
  zeroOff_?: boolean;
  /** A string of printable ASCII characters only. */
  ascii_?: boolean;
  /** The values of an enum. */
  choices_?: readonly string[];
  /** Pattern a non-empty string must match. */
  pattern_?: RegExp;
  /** The rule as shown in errors, when the generated wording would not say it. */
  rule_?: string;
  /** Secret: masked wherever it is shown (an API key: its first characters and its length). */
  secret_?: boolean;
  /** A password: shown only as set or unset, never a character of it nor its length. */
  password_?: boolean;
  required_?: boolean;
  /** Sensor or output fields that apply only to some kinds. */
  kinds_?: readonly string[];
  /** Property name in the saved JSON when it differs from the key's last part. */
  jsonName_?: string;
}

/** The kinds read from a pin; the others are I2C parts. */
export const PIN_KINDS: readonly SensorKind[] = ['digital', 'analog', 'temperature', 'counter'];
export const I2C_KIND_NAMES = /* @__PURE__ */ Object.keys(I2C_KINDS) as SensorKind[];
export const SENSOR_KINDS: readonly SensorKind[] = /* @__PURE__ */ PIN_KINDS.concat(I2C_KIND_NAMES);

export const BOARD_NAMES = ['pico-w', 'pico2-w'] as const;
/** Sensor names become JSON keys and XML element names. */
export const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,15}$/;
/** Bounded so the sampler and its filters fit the Pico W's heap. */
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
const under = (prefix: string, rows: Field[]): Field[] => rows.map((f) => ((f.key_ = prefix + f.key_), f));

const TOP: Field[] = [
  { key_: 'board', type_: T.Enum, choices_: BOARD_NAMES, default_: DEFAULT_BOARD },
  { key_: 'wifi.ssid', type_: T.String, max_: 32, default_: '' },
  {
    // A WPA passphrase is 8-63 printable ASCII characters (IEEE 802.11i).
    key_: 'wifi.password',
    type_: T.String,
    min_: 8,
    max_: 63,
    ascii_: true,
    default_: '',
    secret_: true,
    password_: true,
    rule_: '8-63 characters, or empty for an open network',
  },
  { key_: 'service.url', type_: T.Url, default_: '', rule_: 'http://host[:port][/path], or empty when unset' },
  {
    key_: 'service.apiKey',
    type_: T.String,
    pattern_: /^[A-Za-z0-9_-]{8,128}$/,
    default_: '',
    secret_: true,
    rule_: '8-128 characters of A-Z a-z 0-9 _ -, or empty when unset',
  },
];

/** The settings outside sensors and devices, in their order in the file. */
export const SCALAR_FIELDS: readonly Field[] = /* @__PURE__ */ TOP.concat(
  /* @__PURE__ */ under('agent.', [
    { key_: 'outboxBytes', type_: T.Int, min_: 8192, max_: 1048576, default_: 196608 },
    { key_: 'backoffBaseMs', type_: T.Int, min_: 100, max_: 60000, default_: 2000 },
    { key_: 'backoffCapMs', type_: T.Int, min_: 1000, max_: 3600000, default_: 300000 },
    { key_: 'watchdog', type_: T.Bool, default_: true },
    { key_: 'requestTimeoutMs', type_: T.Int, min_: 1000, max_: 60000, default_: 15000 },
    { key_: 'maxResponseBytes', type_: T.Int, min_: 1024, max_: 32768, default_: 8192 },
    {
      key_: 'lkgRevertMs',
      type_: T.Int,
      min_: 60000,
      max_: 86400000,
      zeroOff_: true,
      default_: 1800000,
    },
    { key_: 'heapFloorBytes', type_: T.Int, min_: 4096, max_: 131072, zeroOff_: true, default_: 16384 },
    { key_: 'safeModeBoots', type_: T.Int, min_: 2, max_: 50, default_: 5 },
    { key_: 'radioOffBetweenUploads', type_: T.Bool, default_: false },
  ]),
  /* @__PURE__ */ under('health.', [
    { key_: 'id', type_: T.Int, min_: 1, max_: MAX_ID, zeroOff_: true, default_: 0 },
    { key_: 'pin', type_: T.Int, min_: 0, max_: MAX_ID, default_: 0 },
    { key_: 'intervalMs', type_: T.Int, min_: 60000, max_: 86400000, default_: 900000 },
  ]),
  /* @__PURE__ */ under('remote.', [
    { key_: 'id', type_: T.Int, min_: 1, max_: MAX_ID, zeroOff_: true, default_: 0 },
    { key_: 'pin', type_: T.Int, min_: 0, max_: MAX_ID, default_: 0 },
    { key_: 'pollMs', type_: T.Int, min_: 60000, max_: 86400000, default_: 900000 },
  ]),
);

/** The I2C kinds that measure quantity `q`. */
const measuring = (q: string): string[] => I2C_KIND_NAMES.filter((k) => (quantitiesOf(k) as string[]).indexOf(q) >= 0);

/** Each quantity's calibration and filters: `<q>Offset`, `<q>Scale`, `<q>Filters` for the kinds that measure it. */
const quantityRows = (): Field[] => {
  const rows: Field[] = [];
  for (const q in UNITS) {
    const kinds_ = measuring(q);
    rows.push(
      // No defaults written into the config (0 and 1 are the step's own): fewer numbers on the heap.
      { key_: q + 'Offset', type_: T.Number, kinds_ },
      { key_: q + 'Scale', type_: T.Number, kinds_ },
      { key_: q + 'Filters', type_: T.Filters, rule_: FILTERS_RULE, kinds_ },
    );
  }
  return rows;
};

const FILTERS_RULE = 'average:n median:n ewma:a clamp:lo:hi delta:d:ms throttle:ms';

/** Each I2C kind's default address: the first its part can have. */
const ADDRESS_DEFAULTS = /* @__PURE__ */ (() => {
  const out: { [k in SensorKind]?: unknown } = {};
  for (const k of I2C_KIND_NAMES) out[k] = addressesOf(k)[0];
  return out;
})();

export const SENSOR_FIELDS = /* @__PURE__ */ under('sensor.*.', /* @__PURE__ */ ([
  { key_: 'kind', type_: T.Enum, choices_: SENSOR_KINDS, required_: true },
  { key_: 'pin', type_: T.Int, min_: 0, max_: 30, kindDefault_: { temperature: 30 }, required_: true, kinds_: PIN_KINDS },
  { key_: 'intervalMs', type_: T.Int, min_: 1000, max_: 86400000, default_: 60000 },
  { key_: 'unit', type_: T.String, max_: 8, default_: '', kindDefault_: { temperature: 'C', analog: 'V' }, kinds_: PIN_KINDS },
  {
    key_: 'filters',
    type_: T.Filters,
    default_: [],
    rule_: FILTERS_RULE,
  },
  { key_: 'pull', type_: T.Enum, choices_: ['up', 'down', 'none'], kindDefault_: { digital: 'none', counter: 'up' }, kinds_: ['digital', 'counter'] },
  { key_: 'invert', type_: T.Bool, default_: false, kinds_: ['digital'] },
  { key_: 'vrefV', type_: T.Number, min_: 1, max_: 5.5, default_: 3.3, kinds_: ['analog'] },
  { key_: 'scale', type_: T.Number, default_: 1, kinds_: ['analog'] },
  { key_: 'offset', type_: T.Number, default_: 0, kinds_: ['analog'] },
  { key_: 'points', type_: T.Points, rule_: 'volts:value,volts:value with different volts', kinds_: ['analog'] },
  { key_: 'oversample', type_: T.Int, min_: 1, max_: 64, kindDefault_: { analog: 1, temperature: 8 }, kinds_: ['analog', 'temperature'] },
  { key_: 'offsetC', type_: T.Number, min_: -20, max_: 20, default_: 0, kinds_: ['temperature'] },
  { key_: 'pollMs', type_: T.Int, min_: 5, max_: 1000, default_: 10, kinds_: ['counter'] },
  { key_: 'bus', type_: T.Int, min_: 0, max_: 1, default_: 0, kinds_: I2C_KIND_NAMES },
  // No defaults here: the bus's own pins are the board's (validate.ts fills them in).
  { key_: 'sda', type_: T.Int, min_: 0, max_: 29, kinds_: I2C_KIND_NAMES },
  { key_: 'scl', type_: T.Int, min_: 0, max_: 29, kinds_: I2C_KIND_NAMES },
  { key_: 'freqHz', type_: T.Int, min_: 10000, max_: 400000, default_: 100000, kinds_: I2C_KIND_NAMES },
  { key_: 'address', type_: T.Int, min_: 8, max_: 119, kindDefault_: ADDRESS_DEFAULTS, kinds_: I2C_KIND_NAMES },
] as Field[]).concat(/* @__PURE__ */ quantityRows()));

export const DEVICE_FIELDS = /* @__PURE__ */ under('device.*.', [
  { key_: 'id', jsonName_: 'deviceId', type_: T.Int, min_: 1, max_: MAX_ID, required_: true },
  { key_: 'pin', jsonName_: 'devicePin', type_: T.Int, min_: 0, max_: MAX_ID, required_: true },
  { key_: 'format', type_: T.Enum, choices_: ['Value', 'JSON', 'XML'], required_: true },
  { key_: 'sensors', type_: T.Names, rule_: 'comma-separated sensor names', required_: true },
  { key_: 'decimals', type_: T.Int, min_: 0, max_: 6, default_: 2 },
  { key_: 'batch', type_: T.Int, min_: 1, max_: 20, default_: 1 },
]);

export const OUTPUT_KINDS = ['digital', 'pwm'] as const;
export const MAX_OUTPUTS = 4;

export const OUTPUT_FIELDS = /* @__PURE__ */ under('output.*.', [
  { key_: 'kind', type_: T.Enum, choices_: OUTPUT_KINDS, required_: true },
  { key_: 'pin', type_: T.Int, min_: 0, max_: 29, required_: true },
  { key_: 'sourceId', type_: T.Int, min_: 1, max_: MAX_ID, required_: true },
  { key_: 'sourcePin', type_: T.Int, min_: 0, max_: MAX_ID, required_: true },
  {
    key_: 'field',
    type_: T.String,
    max_: 64,
    pattern_: /^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+){0,3}$/,
    default_: '',
    rule_: "empty for a Value device, or a JSON field like 'vent' or 'vents.north'",
  },
  { key_: 'pollMs', type_: T.Int, min_: 5000, max_: 86400000, default_: 60000 },
  { key_: 'safe', type_: T.Number, min_: 0, max_: 1, default_: 0 },
  { key_: 'failsafeMs', type_: T.Int, min_: 10000, max_: 86400000, default_: 600000 },
  { key_: 'invert', type_: T.Bool, default_: false, kinds_: ['digital'] },
  { key_: 'freqHz', type_: T.Int, min_: 10, max_: 100000, default_: 1000, kinds_: ['pwm'] },
  { key_: 'scale', type_: T.Number, min_: 0.000001, max_: 1000000, default_: 1, kinds_: ['pwm'] },
]);

/** The part after the last dot: the field name inside its section or entry. */
export const fieldName = (f: Field): string => f.key_.slice(f.key_.lastIndexOf('.') + 1);
/** The property in saved JSON and in the validated config. */
export const propOf = (f: Field): string => f.jsonName_ || fieldName(f);
/** Where a scalar setting lives in `top` (a config or its saved form): `top` itself, or its section. */
export const holderOf = (top: Record<string, unknown>, f: Field): unknown => {
  const dot = f.key_.indexOf('.');
  return dot < 0 ? top : top[f.key_.slice(0, dot)];
};

/** Every setting, in the order of the file and of help('keys'). */
export const SCHEMA: readonly Field[] = /* @__PURE__ */ SCALAR_FIELDS.concat(SENSOR_FIELDS, DEVICE_FIELDS, OUTPUT_FIELDS);

export function findField(list: readonly Field[], name: string): Field | undefined {
  for (const f of list) if (fieldName(f) === name) return f;
  return undefined;
}

/** The default of a field for a sensor of `kind` (undefined when there is none). */
export function defaultOf(f: Field, kind?: SensorKind): unknown {
  if (f.kindDefault_ && kind !== undefined && f.kindDefault_[kind] !== undefined) return f.kindDefault_[kind];
  return f.default_;
}

/** The rule a value broke, worded for an error line after the key. */
export function ruleOf(f: Field): string {
  if (f.rule_) return f.rule_;
  const range = f.max_ === undefined ? ' >= ' + f.min_ : ' from ' + f.min_ + ' to ' + f.max_;
  switch (f.type_) {
    case T.Int:
      return (f.zeroOff_ ? '0 (off) or a whole number' : 'must be a whole number') + range;
    case T.Number:
      return f.min_ === undefined ? 'must be a finite number' : 'must be a number' + range;
    case T.Bool:
      return 'must be true or false';
    case T.Enum:
      return 'must be one of ' + (f.choices_ || []).join(', ');
    default:
      // T.String: every other type has its rule in the table.
      return (f.min_ ? f.min_ + '-' : 'at most ') + f.max_ + ' bytes (UTF-8)';
  }
}

/** First 4 characters and the length; short (invalid) secrets show none of their characters. */
export function mask(secret: string): string {
  if (secret === '') return '(unset)';
  return (secret.length >= 8 ? secret.slice(0, 4) : '') + '\u2026(' + secret.length + ')';
}
