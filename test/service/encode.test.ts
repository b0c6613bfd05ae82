import { describe, expect, it } from 'vitest';
import type { DeviceConfig, Reading } from '../../src/model';
import { encodeJson, encodeValue, encodeXml, escapeXml, formatNumber, isXmlName, jsonString } from '../../src/service/encode';

/** A reading taken `s` seconds after boot. */
function reading(sensorId: string, value: number, s: number, extra: Partial<Reading> = {}): Reading {
  return { sensorId, value, unit: 'C', uptimeMs: s * 1000, ...extra };
}

const jsonDev: DeviceConfig = { name: 'd', deviceId: 5, devicePin: 77, format: 'JSON', sensors: ['temp', 'hum'] };

describe('formatNumber', () => {
  it.each([
    [21.5, 2, '21.50'],
    [0, 2, '0.00'],
    [-0, 2, '0.00'],
    [-0, 0, '0'],
    [-0.001, 2, '0.00'],
    [-0.004, 2, '0.00'],
    [-0.005, 2, '-0.01'],
    [-3.14159, 3, '-3.142'],
    [1.005, 2, '1.01'],
    [1.45, 1, '1.5'],
    [2.5, 0, '3'],
    [-2.5, 0, '-3'],
    [9.995, 2, '10.00'],
    [99.96, 1, '100.0'],
    [0.5, 0, '1'],
    [0.49, 0, '0'],
    [123456789, 0, '123456789'],
    [1e20, 2, '100000000000000000000.00'],
    [1.5e-7, 6, '0.000000'],
    [5e-7, 6, '0.000001'],
    [-5e-7, 6, '-0.000001'],
    [1e-7, 6, '0.000000'],
    [0.1 + 0.2, 2, '0.30'],
    [42, 6, '42.000000'],
    [7, 0, '7'],
  ])('%s with %i decimals -> %s', (v, d, text) => {
    expect(formatNumber(v, d)).toBe(text);
  });

  it.each([
    [NaN, 2],
    [Infinity, 2],
    [-Infinity, 0],
    [1e21, 2],
    [-1e21, 0],
    [1, 7],
    [1, -1],
    [1, 1.5],
  ])('%s with %s decimals -> undefined', (v, d) => {
    expect(formatNumber(v, d)).toBeUndefined();
  });
});

describe('jsonString / escapeXml / isXmlName', () => {
  it('escapes JSON strings as ASCII', () => {
    expect(jsonString('a"b\\c\nd\te\u0001é😀')).toBe('"a\\"b\\\\c\\nd\\te\\u0001\\u00e9\\ud83d\\ude00"');
    expect(JSON.parse(jsonString('a"b\\c\nd\te\u0001é😀'))).toBe('a"b\\c\nd\te\u0001é😀');
  });

  it('escapes XML specials and non-ASCII', () => {
    expect(escapeXml(`a&b<c>d"e'f`)).toBe('a&amp;b&lt;c&gt;d&quot;e&apos;f');
    expect(escapeXml('°C é 😀')).toBe('&#xB0;C &#xE9; &#x1F600;');
    expect(escapeXml('\t\n\u0001\ud800')).toBe('&#x9;&#xA;&#xFFFD;&#xFFFD;');
  });

  it('validates element names', () => {
    expect(['temp', '_x', 'a1.b-c', 'T'].map(isXmlName)).toEqual([true, true, true, true]);
    expect(['', '1a', 'a b', 'a:b', 'xmlfoo', 'XMLa', 'é', '-a'].map(isXmlName)).toEqual([false, false, false, false, false, false, false, false]);
  });
});

describe('encodeValue', () => {
  it('formats the value', () => {
    expect(encodeValue(reading('temp', -12.345, 1), 1)).toEqual({ ok: true, text: '-12.3' });
    expect(encodeValue(reading('temp', -0, 1), 2)).toEqual({ ok: true, text: '0.00' });
  });

  it('rejects values it cannot format', () => {
    expect(encodeValue(reading('temp', NaN, 9), 2)).toEqual({ ok: false, error: 'sensor temp: value NaN is not a finite number below 1e21' });
    expect(encodeValue(reading('temp', 1e21, 9), 2)).toEqual({ ok: false, error: 'sensor temp: value 1e+21 is not a finite number below 1e21' });
  });
});

describe('encodeJson', () => {
  it('encodes the later value of a sensor given twice, the seq given and the latest uptime', () => {
    const r = encodeJson(jsonDev, [reading('temp', 21.5, 11), reading('hum', 40.256, 13), reading('temp', 21.7, 12)], 40);
    expect(r).toEqual({ ok: true, text: '{"temp":21.70,"hum":40.26,"seq":40,"uptime_ms":13000}' });
    // A whole-number reading keeps its own decimals; no ts (stamped at send time).
    const w = encodeJson({ ...jsonDev, decimals: 0 }, [reading('temp', -0.2, 3), reading('hum', 7, 2, { decimals: 0 })], 3);
    expect(w).toEqual({ ok: true, text: '{"temp":0,"hum":7,"seq":3,"uptime_ms":3000}' });
    expect(JSON.parse((w as { text: string }).text)).toEqual({ temp: 0, hum: 7, seq: 3, uptime_ms: 3000 });
  });

  it('encodes one object per write on a batching device, a repeated sensor included (the uplink joins records)', () => {
    const rs = [reading('temp', 1, 1), reading('hum', 2, 2), reading('temp', 3, 3), reading('hum', 4, 4), reading('temp', 5, 5)];
    for (const batch of [1, 3, 20]) {
      expect(encodeJson({ ...jsonDev, batch }, rs, 9), 'batch ' + batch).toEqual({ ok: true, text: '{"temp":5.00,"hum":4.00,"seq":9,"uptime_ms":5000}' });
    }
  });

  it('escapes odd sensor names to ASCII', () => {
    const r = encodeJson(jsonDev, [reading('t"é', 1, 1)], 1);
    expect(r).toEqual({ ok: true, text: '{"t\\"\\u00e9":1.00,"seq":1,"uptime_ms":1000}' });
  });

  it('rejects NaN, empty input and names that clash with metadata', () => {
    expect(encodeJson(jsonDev, [reading('temp', 1, 1), reading('hum', NaN, 2)], 2)).toEqual({
      ok: false,
      error: 'sensor hum: value NaN is not a finite number below 1e21',
    });
    expect(encodeJson(jsonDev, [], 1)).toEqual({ ok: false, error: 'no readings to encode' });
    expect(encodeJson(jsonDev, [reading('seq', 1, 1)], 1)).toEqual({ ok: false, error: 'sensor name "seq" clashes with the field seq' });
    expect(encodeJson(jsonDev, [reading('uptime_ms', 1, 1)], 1)).toEqual({ ok: false, error: 'sensor name "uptime_ms" clashes with the field uptime_ms' });
    expect(encodeJson(jsonDev, [reading('ts', 1, 1)], 1)).toEqual({ ok: false, error: 'sensor name "ts" clashes with the field ts' });
    expect(encodeJson(jsonDev, [reading('temp', 1, 1, { uptimeMs: NaN })], 1)).toEqual({
      ok: false,
      error: 'sensor temp: uptimeMs NaN is not a finite number below 1e21',
    });
    expect(encodeJson(jsonDev, [reading('temp', 1, 1)], NaN)).toEqual({ ok: false, error: 'seq NaN is not a finite number below 1e21' });
  });
});

describe('encodeXml', () => {
  const xmlDev: DeviceConfig = { ...jsonDev, format: 'XML', decimals: 1 };

  it('encodes one reading element with units as attributes', () => {
    const rs = [reading('temp', 21.55, 7, { unit: '°C' }), reading('hum', 40, 8, { unit: '' })];
    expect(encodeXml(xmlDev, rs, 8)).toEqual({
      ok: true,
      text: '<reading seq="8" uptime_ms="8000"><temp unit="&#xB0;C">21.6</temp><hum>40.0</hum></reading>',
    });
  });

  it('escapes units and keeps the latest value per sensor', () => {
    const rs = [reading('a', 1, 1, { unit: '<&">' }), reading('a', -2, 2, { unit: "'" })];
    expect(encodeXml(xmlDev, rs, 2)).toEqual({ ok: true, text: '<reading seq="2" uptime_ms="2000"><a unit="&apos;">-2.0</a></reading>' });
  });

  it('rejects bad element names and values', () => {
    expect(encodeXml(xmlDev, [reading('1x', 1, 1)], 1)).toEqual({ ok: false, error: 'sensor name "1x" is not a valid XML element name' });
    expect(encodeXml(xmlDev, [reading('x', Infinity, 1)], 1)).toEqual({
      ok: false,
      error: 'sensor x: value Infinity is not a finite number below 1e21',
    });
  });
});
