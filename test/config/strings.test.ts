// Strings from a file that flash.sh --config wrote meet the same rules as
// those typed at the console: one checker (textRule in validate.ts) for
// both, so the lines are the same too.
import { describe, expect, it } from 'vitest';
import { CODEC } from '../../src/config/codec';
import { createConfigEditor } from '../../src/config/edit';
import { createConfigStore } from '../../src/config/store';
import { defaultConfig, printable, validateConfig } from '../../src/config/validate';
import { createMemoryFileStore } from '../fakes/files';
import { configOf, errorsOf } from '../fakes/validate';

const sensor = (s: Record<string, unknown>): unknown => ({ sensors: [{ name: 's', kind: 'digital', pin: 5, ...s }] });

describe('a file with bad text is refused, one line per error naming the key and the rule', () => {
  it.each([
    [{ wifi: { ssid: '\uD800x' } }, 'wifi.ssid: must be valid text: no lone UTF-16 surrogate (U+D800 at character 1)'],
    [{ wifi: { ssid: 'a\uDBFF' } }, 'wifi.ssid: must be valid text: no lone UTF-16 surrogate (U+DBFF at character 2)'],
    [{ wifi: { ssid: 'tab\there' } }, 'wifi.ssid: must not hold control characters (U+0009 at character 4)'],
    [{ wifi: { password: 'secret\u0000pass' } }, 'wifi.password: must not hold control characters'],
    [{ wifi: { password: 'geheim-\u00fcber-alles' } }, 'wifi.password: must be printable ASCII'],
    [{ service: { url: 'http://10.0.0.1\u0085' } }, 'service.url: must not hold control characters (U+0085 at character 16)'],
    [{ service: { apiKey: 'k3y\u0000k3yk3yk3y' } }, 'service.apiKey: must not hold control characters'],
    [sensor({ unit: 'a\u0000b' }), 'sensor.s.unit: must not hold control characters (U+0000 at character 2)'],
    [sensor({ unit: '\u00b5S/cm\u00b2\u00b2' }), 'sensor.s.unit: at most 8 bytes (UTF-8)'],
    [sensor({ filters: 'median:5\u0000' }), 'sensor.s.filters: must not hold control characters (U+0000 at character 9)'],
    [sensor({ filters: [{ type: 'constructor' }] }), 'sensor.s.filters: each filter needs a type: average, median, ewma, clamp, delta, throttle'],
    [sensor({ filters: [{ type: 'median', window: 5, ['w\u0000']: 1 }] }), 'sensor.s.filters: median has no parameter w\\u0000'],
    [{ ['\u001b[2J']: 1 }, '\\u001B[2J: unknown key'],
    [{ wifi: { ['ssid\u0000']: 'x' } }, 'wifi.ssid\\u0000: unknown key'],
    [sensor({ ['pin\u0007']: 5 }), 'sensor.s.pin\\u0007: unknown field'],
    [{ sensors: [{ name: 't', kind: 'temperature' }], devices: [{ name: 'd', deviceId: 1, devicePin: 1, format: 'JSON', sensors: ['t', 'x\u0000'] }] }, "device.d.sensors: 'x\\u0000' is not a sensor name (name, or name.quantity)"],
    [{ outputs: [{ name: 'o', kind: 'digital', pin: 16, sourceId: 5, sourcePin: 1, field: 'v\u0000' }] }, 'output.o.field: must not hold control characters (U+0000 at character 2)'],
  ])('%j', (raw, error) => {
    expect(errorsOf(raw)).toEqual([error]);
  });

  it('the console refuses the same text with the same line', () => {
    for (const [key, value, raw] of [
      ['wifi.ssid', '\uD800x', { wifi: { ssid: '\uD800x' } }],
      ['wifi.password', 'secret\u0000pass', { wifi: { password: 'secret\u0000pass' } }],
      ['sensor.s.unit', 'a\u0000b', sensor({ unit: 'a\u0000b' })],
    ] as const) {
      const e = createConfigEditor({ current: configOf(sensor({})) });
      const line = errorsOf(raw)[0];
      expect(line).toMatch(/^[\w.]+: must /);
      expect(e.set(key, value)).toBe(line);
    }
  });

  // A guard that the checks refuse no more than they should (the code before them refused nothing).
  it('accepts text the fields may hold: UTF-8 within the byte limit, pairs whole', () => {
    const c = configOf({ wifi: { ssid: 'caf\u00e9 \uD83D\uDE00 net', password: 'p@ss w0rd~!' }, sensors: [{ name: 's', kind: 'analog', pin: 26, unit: '\u00b5S/cm' }] });
    expect(c.wifi.ssid).toBe('caf\u00e9 \uD83D\uDE00 net');
    expect(c.sensors[0]!.unit).toBe('\u00b5S/cm');
  });

  it('a file that reaches the store is checked at load: the board runs on defaults and says why', () => {
    const files = createMemoryFileStore();
    files.write('config.json', new TextEncoder().encode('{"wifi":{"ssid":"field\\u0000net"}}'));
    const loaded = createConfigStore({ codec: () => CODEC, checker: 'test', files }).load();
    expect(loaded.errors).toEqual(['wifi.ssid: must not hold control characters (U+0000 at character 6)']);
    expect(loaded.config).toEqual(defaultConfig());
  });
});

describe('required fields', () => {
  const raw = { sensors: [{ name: 's', kind: 'digital' }] };

  it("a file must give them; the console's pending changes may lack them until save()", () => {
    expect(errorsOf(raw)).toEqual(['sensor.s.pin: required']);
    const r = validateConfig(raw, true);
    expect(r.ok && r.config.sensors[0]!.pin).toBeUndefined();
    // But never the kind: without it an entry has no fields.
    expect(validateConfig({ sensors: [{ name: 's' }] }, true)).toEqual({ ok: false, errors: ['sensor.s.kind: required'] });
  });
});

describe('printable', () => {
  it.each([
    ['plain', 'plain'],
    ['a\u0000b', 'a\\u0000b'],
    ['\u00e9', '\\u00E9'],
    ['\uD83D\uDE00', '\\uD83D\\uDE00'],
    ['x'.repeat(40), 'x'.repeat(40)],
    ['x'.repeat(41), 'x'.repeat(39) + '\u2026'],
    // Never half an escape.
    ['\u0000'.repeat(20), '\\u0000'.repeat(6) + '\u2026'],
  ])('%j -> %j', (s, shown) => {
    expect(printable(s)).toBe(shown);
  });
});
