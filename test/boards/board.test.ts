import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { BOARD_BUILD_ONLY, BOARD_COLD_ONLY, deviceBoard } from '../../scripts/build/build';
import { i2cSdaOf } from '../../src/config/board-i2c';
import { getBoard, type Board } from '../../src/board';
import { checkPin } from '../../src/config/pins';

const load = (file: string): unknown =>
  JSON.parse(readFileSync(new URL('../../boards/' + file, import.meta.url), 'utf8'));

type Schema = Record<string, unknown>;

const KNOWN = new Set([
  '$schema', '$id', 'title', 'description', 'type', 'required', 'properties', 'additionalProperties',
  'propertyNames', 'items', 'minItems', 'uniqueItems', 'minimum', 'maximum', 'minLength', 'pattern',
]);

function typeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

// Only the keywords boards/schema.json uses; an unknown keyword fails loudly
// rather than being ignored, so the schema cannot outgrow this validator unseen.
function validate(schema: Schema, value: unknown, path = '$'): string[] {
  for (const k of Object.keys(schema)) if (!KNOWN.has(k)) throw new Error('validator lacks keyword ' + k);
  const errors: string[] = [];
  const t = schema.type as string | undefined;
  const actual = typeOf(value);
  if (t !== undefined && actual !== t && !(t === 'number' && actual === 'integer')) {
    return [path + ': expected ' + t + ', got ' + actual];
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(path + ': below ' + schema.minimum);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(path + ': above ' + schema.maximum);
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) errors.push(path + ': too short');
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) errors.push(path + ': does not match ' + schema.pattern);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) errors.push(path + ': too few items');
    if (schema.uniqueItems === true && new Set(value.map((x) => JSON.stringify(x))).size !== value.length) errors.push(path + ': duplicate items');
    if (schema.items) value.forEach((x, i) => errors.push(...validate(schema.items as Schema, x, path + '[' + i + ']')));
  }
  if (actual === 'object') {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const r of (schema.required ?? []) as string[]) if (!(r in obj)) errors.push(path + ': missing ' + r);
    for (const [k, v] of Object.entries(obj)) {
      if (schema.propertyNames) errors.push(...validate(schema.propertyNames as Schema, k, path + ' key ' + k));
      const sub = props[k];
      if (sub) errors.push(...validate(sub, v, path + '.' + k));
      else if (schema.additionalProperties === false) errors.push(path + ': unexpected ' + k);
      else if (typeof schema.additionalProperties === 'object') errors.push(...validate(schema.additionalProperties as Schema, v, path + '.' + k));
    }
  }
  return errors;
}

const schema = load('schema.json') as Schema;
const files = ['pico-w.json', 'pico2-w.json'];

describe('board files', () => {
  it.each(files)('%s matches the schema', (file) => {
    expect(validate(schema, load(file))).toEqual([]);
  });

  it('the validator rejects a broken board', () => {
    const bad = load('pico-w.json') as Record<string, unknown>;
    delete bad.heapBytes;
    bad.gpio = [0, 0, 31];
    bad.adcChannels = { x: 1.5 };
    bad.extra = true;
    expect(validate(schema, bad)).toEqual([
      '$: missing heapBytes',
      '$.gpio: duplicate items',
      '$.gpio[2]: above 29',
      '$.adcChannels key x: does not match ^[0-9]+$',
      '$.adcChannels.x: expected integer, got number',
      '$: unexpected extra',
    ]);
  });

  it('getBoard finds each file by its name and nothing else', () => {
    expect(getBoard('pico-w')).toEqual(load('pico-w.json'));
    expect(getBoard('pico2-w')).toEqual(load('pico2-w.json'));
    expect(getBoard('pico')).toBeUndefined();
  });
});

describe.each(['pico-w', 'pico2-w'])('%s facts', (name) => {
  const b = getBoard(name) as Board;

  it('header GPIOs are GP0-GP22 and GP26-GP28', () => {
    const expected = [...Array.from({ length: 23 }, (_, i) => i), 26, 27, 28];
    expect(b.gpio).toEqual(expected);
  });

  it('radio pins, boot-skip pin, ADC map, temperature pseudo-pin and LED', () => {
    expect(b.radioPins).toEqual({ 23: 'WL_ON', 24: 'WL_D', 25: 'WL_CS', 29: 'WL_CLK' });
    expect(b.bootSkipPin).toBe(22);
    expect(b.adcChannels).toEqual({ 26: 0, 27: 1, 28: 2 });
    expect(b.temperature).toEqual({ pin: 30, channel: 4 });
    expect(b.led).toEqual({ chip: 'CYW43', gpio: 0 });
  });

  it('the flash regions fill the flash exactly', () => {
    const f = b.flash;
    expect(f.firmwareBytes! + f.kvBytes + f.programBytes + f.fsBytes).toBe(f.totalBytes);
    // The key-value store keeps 16 slots per 4 KB sector.
    expect(f.kvSlots).toBe((f.kvBytes / 4096) * 16);
  });

  it("the device bundle's copy leaves out what only the build reads, and keeps the rest", () => {
    const raw = JSON.parse(readFileSync(`boards/${b.name}.json`, 'utf8')) as Record<string, unknown>;
    const d = deviceBoard(raw);
    for (const k of BOARD_BUILD_ONLY) {
      expect(k in d, k).toBe(false);
      expect(k in (d['flash'] as object), 'flash.' + k).toBe(false);
    }
    // No device code reads them.
    const files = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && f !== 'board.ts');
    const readers = files.filter((f) => new RegExp('\\.(' + BOARD_BUILD_ONLY.join('|') + ')\\b').test(readFileSync('src/' + f, 'utf8')));
    expect(readers).toEqual([]);
    // Fields only cold code reads are left out too, and read only through their own table.
    for (const k of BOARD_COLD_ONLY) expect(k in d, k).toBe(false);
    const coldReaders = files.filter((f) => new RegExp('\\.(' + BOARD_COLD_ONLY.join('|') + ')\\b').test(readFileSync('src/' + f, 'utf8')));
    expect(coldReaders).toEqual([]);
    expect(i2cSdaOf(b.name)).toEqual(raw['i2cSda']);
    expect(d).toMatchObject({ gpio: b.gpio, radioPins: b.radioPins, bootSkipPin: 22, watchdogMaxMs: b.watchdogMaxMs, flash: { kvBytes: b.flash.kvBytes, programBytes: b.flash.programBytes, fsBytes: b.flash.fsBytes } });
  });
});

describe('per-board limits', () => {
  const pw = getBoard('pico-w') as Board;
  const p2 = getBoard('pico2-w') as Board;

  it('heap, watchdog and bundle budget', () => {
    expect([pw.heapBytes, p2.heapBytes]).toEqual([184312, 393208]);
    expect([pw.watchdogMaxMs, p2.watchdogMaxMs]).toEqual([8388, 16777]);
    expect([pw.bundleBudgetBytes, p2.bundleBudgetBytes]).toEqual([196608, 262144]);
    expect([pw.residentBudgetBytes, p2.residentBudgetBytes]).toEqual([63488, 163840]);
    expect([pw.mcu, p2.mcu]).toEqual(['RP2040', 'RP2350A']);
  });

  it('flash map', () => {
    expect(pw.flash).toEqual({
      totalBytes: 2 * 1024 * 1024, firmwareBytes: 1008 * 1024, kvBytes: 16 * 1024,
      kvSlots: 64, programBytes: 512 * 1024, fsBytes: 524288,
    });
    expect(p2.flash).toEqual({
      totalBytes: 4 * 1024 * 1024, firmwareBytes: 1024 * 1024, kvBytes: 64 * 1024,
      kvSlots: 256, programBytes: 1472 * 1024, fsBytes: 1572864,
    });
  });
});

describe.each(['pico-w', 'pico2-w'])('checkPin on %s', (name) => {
  const b = getBoard(name) as Board;
  const kinds = ['digital', 'analog', 'temperature', 'counter'] as const;

  it.each([
    [23, 'WL_ON'],
    [24, 'WL_D'],
    [25, 'WL_CS'],
    [29, 'WL_CLK'],
  ])('pin %i is refused for every kind (radio %s)', (pin, signal) => {
    for (const kind of kinds) {
      expect(checkPin(b, pin, kind)).toBe(
        'pin ' + pin + ': GP' + pin + ' belongs to the Wi-Fi radio (' + signal + ') and must never be used',
      );
    }
  });

  it('the boot-skip pin is refused for sensors', () => {
    const msg = 'pin 22: GP22 is the boot-skip pin; a sensor that holds it low at power-up stops the program from starting';
    expect(checkPin(b, 22, 'digital')).toBe(msg);
    expect(checkPin(b, 22, 'counter')).toBe(msg);
    expect(checkPin(b, 22, 'analog')).toBe(msg);
  });

  it('analog needs an ADC pin', () => {
    expect(checkPin(b, 5, 'analog')).toBe('pin 5: analog sensors need an ADC pin (26, 27, 28)');
    expect(checkPin(b, 21, 'analog')).toBe('pin 21: analog sensors need an ADC pin (26, 27, 28)');
    for (const pin of [26, 27, 28]) expect(checkPin(b, pin, 'analog')).toBeUndefined();
  });

  it('digital and counter accept every header pin but 22, the ADC pins included', () => {
    for (const pin of b.gpio) {
      const want = pin === 22 ? expect.any(String) : undefined;
      expect(checkPin(b, pin, 'digital')).toEqual(want);
      expect(checkPin(b, pin, 'counter')).toEqual(want);
    }
  });

  it('pin 30 is only for the temperature kind, and temperature only for pin 30', () => {
    expect(checkPin(b, 30, 'temperature')).toBeUndefined();
    expect(checkPin(b, 30, 'analog')).toBe('pin 30 is the internal temperature sensor; use kind temperature');
    expect(checkPin(b, 30, 'digital')).toBe('pin 30 is the internal temperature sensor; use kind temperature');
    expect(checkPin(b, 26, 'temperature')).toBe('pin 26: kind temperature reads the internal sensor, pin 30');
  });

  it('pins that do not exist on the header', () => {
    expect(checkPin(b, 31, 'digital')).toBe('pin 31: not a GPIO on the ' + name + ' header');
    expect(checkPin(b, -1, 'counter')).toBe('pin -1: not a GPIO on the ' + name + ' header');
    expect(checkPin(b, 2.5, 'digital')).toBe('pin 2.5: not a GPIO on the ' + name + ' header');
  });
});
