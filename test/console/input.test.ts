// Bad input at the console: every refusal is one line naming the key and the
// rule, quotes nothing a terminal could choke on, shows no part of a
// password, and changes nothing. And the view of unsaved changes: config()
// lists what save() would change, old -> new, secrets masked.
import { describe, expect, it } from 'vitest';
import { testConfig } from '../fakes/config';
import { fresh, said, wholeFlash } from './helpers';

const PASSWORD = testConfig().wifi.password;
const API_KEY = testConfig().service.apiKey;

/** Only printable ASCII and the ellipsis the masks use: nothing that garbles a terminal. */
const PRINTABLE = /^[\x20-\x7e\u2026]*$/;

describe('set() refuses bad text in one line and changes nothing', () => {
  it.each([
    // set('wifi.ssid') alone used to answer "wifi.ssid set; save() to apply".
    ['wifi.ssid', undefined, "wifi.ssid: no value given (to go back to the default: unset('wifi.ssid'))"],
    ['sensor.temp.unit', undefined, "sensor.temp.unit: no value given (to go back to the default: unset('sensor.temp.unit'))"],
    // A lone surrogate used to be saved and shown by status() as U+FFFD.
    ['wifi.ssid', '\uD800x', 'wifi.ssid: must be valid text: no lone UTF-16 surrogate (U+D800 at character 1)'],
    ['wifi.ssid', 'net\uDC00', 'wifi.ssid: must be valid text: no lone UTF-16 surrogate (U+DC00 at character 4)'],
    // A NUL used to reach config()'s output.
    ['sensor.temp.unit', 'a\u0000b', 'sensor.temp.unit: must not hold control characters (U+0000 at character 2)'],
    ['wifi.ssid', 'field\nnet', 'wifi.ssid: must not hold control characters (U+000A at character 6)'],
    ['wifi.ssid', 'del\u007f', 'wifi.ssid: must not hold control characters (U+007F at character 4)'],
    ['wifi.ssid', 'c1\u0085', 'wifi.ssid: must not hold control characters (U+0085 at character 3)'],
    ['service.url', 'http://10.0.0.1:8080\r', 'service.url: must not hold control characters (U+000D at character 21)'],
    ['device.tj.sensors', 'temp,\u0000', 'device.tj.sensors: must not hold control characters (U+0000 at character 6)'],
    ['sensor.temp.filters', 'median:5\t', 'sensor.temp.filters: must not hold control characters (U+0009 at character 9)'],
    // The limit is in bytes: 5 characters, 10 bytes.
    ['sensor.temp.unit', '\u00b0\u00b0\u00b0\u00b0\u00b0', 'sensor.temp.unit: at most 8 bytes (UTF-8)'],
    // A typed name that is a property every object has is not a filter (it used to throw).
    ['sensor.temp.filters', 'constructor:1', "sensor.temp.filters: unknown filter 'constructor' (average, median, ewma, clamp, delta, throttle)"],
    ['sensor.temp.filters', 'toString', "sensor.temp.filters: unknown filter 'toString' (average, median, ewma, clamp, delta, throttle)"],
    // Keys and quoted values are shown escaped, never raw.
    ['wifi.\u0000', 'x', 'wifi.\\u0000: unknown key (see help())'],
    ['sensor.\u001b[2J.kind', 'digital', 'sensor.\\u001B[2J.kind: unknown key (see help())'],
    ['x'.repeat(100), 1, 'x'.repeat(39) + '\u2026: unknown key (see help())'],
    ['device.tj.sensors', 'temp,\u00e9t\u00e9', "device.tj.sensors: '\\u00E9t\\u00E9' is not a sensor name (name, or name.quantity)"],
    ['device.tj', { id: 9, pin: 1, format: 'JSON', sensors: 'temp', ['bad\u0007']: 1 }, 'device.tj.bad\\u0007: unknown field'],
  ])('set(%j, %j)', (key, value, message) => {
    const { board, b } = fresh();
    const flash = wholeFlash(board);
    const before = JSON.stringify(b.rt.pending());
    const lines = said(b, () => b.cmd.set!(key, value));
    expect(lines).toEqual([message]);
    expect(lines[0]).toMatch(PRINTABLE);
    expect(JSON.stringify(b.rt.pending())).toBe(before);
    expect(b.rt.dirty()).toBe(false);
    expect(wholeFlash(board)).toBe(flash);
    b.rt.stop();
  });

  it('a whole device missing fields: one line naming them all, nothing changed', () => {
    const { b } = fresh();
    // It used to answer in three lines, one per missing field.
    expect(said(b, () => b.cmd.set!('device.sim_value', { id: 9 }))).toEqual(['device.sim_value.pin, .format, .sensors: required']);
    expect(b.rt.dirty()).toBe(false);
    b.rt.stop();
  });

  it('several errors from one change come on one line', () => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.set!('device.tj', { id: 0, pin: -1, format: 'JSON', sensors: 'temp' }))).toEqual([
      'device.tj.id: must be a whole number from 1 to 2147483647; device.tj.pin: must be a whole number from 0 to 2147483647',
    ]);
    b.rt.stop();
  });
});

describe('a password shows nothing of itself', () => {
  it.each([
    ['pa\u0000ssword', 'wifi.password: must not hold control characters'],
    ['pass\uD800word', 'wifi.password: must be printable ASCII'],
    // A WPA passphrase is printable ASCII.
    ['p\u00e4ssw\u00f6rd-long', 'wifi.password: must be printable ASCII'],
    ['pass\uD83D\uDE00word', 'wifi.password: must be printable ASCII'],
  ])('a refused password %j names no character or position of it', (pw, message) => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.set!('wifi.password', pw))).toEqual([message]);
    expect(b.rt.pending().wifi.password).toBe(PASSWORD);
    b.rt.stop();
  });

  it('config() shows a password as (set) or (unset), the API key by its prefix and length', () => {
    const { b } = fresh();
    const lines = said(b, () => b.cmd.config!());
    expect(lines).toContain('wifi.password = (set)');
    expect(lines).toContain('service.apiKey = k3y0\u2026(33)');
    expect(lines.join('\n')).not.toContain(PASSWORD.slice(0, 3));
    expect(lines.join('\n')).not.toContain('(' + PASSWORD.length + ')');
    b.cmd.set!('wifi.password', '');
    expect(said(b, () => b.cmd.config!())).toContain('  wifi.password: (set) -> (unset)');
    b.rt.stop();
  });
});

describe('a required field is required at save()', () => {
  it('a sensor made from its kind gets no guessed pin; save() refuses in one line naming it', () => {
    const { board, b } = fresh();
    const flash = wholeFlash(board);
    expect(said(b, () => b.cmd.set!('sensor.x.kind', 'digital'))).toEqual(['sensor.x.kind set; still to set: sensor.x.pin']);
    const shown = said(b, () => b.cmd.config!());
    expect(shown.filter((l) => l.startsWith('sensor.x.') || l.startsWith('  sensor.x.pin'))).toEqual([]);
    expect(shown).toContain('save() refuses until set: sensor.x.pin');
    const refused = said(b, () => b.cmd.save!());
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain('sensor.x.pin: required');
    expect(wholeFlash(board)).toBe(flash);
    expect(b.rt.config().sensors.map((s) => s.name)).toEqual(['temp', 'light', 'door']);
    // Given its pin, it saves.
    expect(said(b, () => b.cmd.set!('sensor.x.pin', 5))).toEqual(['sensor.x.pin set; save() to apply']);
    expect(said(b, () => b.cmd.save!())).toEqual(['saved; agent running']);
    expect(b.rt.config().sensors.filter((s) => s.name === 'x')[0]!.pin).toBe(5);
    b.rt.stop();
  });

  // A guard for the pending changes that may now lack a required field:
  // unset() must not be a way to make one (the whole-config check refused it before).
  it('a required field cannot be unset', () => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.unset!('sensor.door.pin'))).toEqual(['sensor.door.pin: required']);
    expect(b.rt.dirty()).toBe(false);
    b.rt.stop();
  });
});

describe('config() shows what save() would change', () => {
  it('old -> new for every changed setting, secrets masked, before the closing line', () => {
    const { b } = fresh();
    b.cmd.set!('agent.backoffBaseMs', 3000);
    b.cmd.set!('wifi.password', 'another-pass-16');
    b.cmd.set!('service.apiKey', 'abcd0123456789abcdef0123456789ab');
    b.cmd.set!('device.tx.sensors', 'light');
    b.cmd.unset!('device.tv');
    const lines = said(b, () => b.cmd.config!());
    const at = lines.indexOf('save() would change (old -> new):');
    expect(lines.slice(at)).toEqual([
      'save() would change (old -> new):',
      '  wifi.password: (set) -> (set) (changed)',
      '  service.apiKey: k3y0\u2026(33) -> abcd\u2026(32)',
      '  agent.backoffBaseMs: 2000 -> 3000',
      '  device.tx.sensors: light,door -> light',
      '  device.tv.id: 1 -> (none)',
      '  device.tv.pin: *** -> (none)',
      '  device.tv.format: Value -> (none)',
      '  device.tv.sensors: temp -> (none)',
      '  device.tv.decimals: 2 -> (none)',
      '  device.tv.batch: 1 -> (none)',
      '(unsaved changes: type save() to apply them, discard() to drop them)',
    ]);
    const all = lines.join('\n');
    expect(all).not.toContain('another');
    expect(all).not.toContain(API_KEY);
    // The running configuration above is unchanged.
    expect(lines).toContain('agent.backoffBaseMs = 2000');
    b.rt.stop();
  });

  it('a new entry shows its settings from (none)', () => {
    const { b } = fresh();
    b.cmd.set!('sensor.rain.kind', 'counter');
    b.cmd.set!('sensor.rain.pin', 14);
    const lines = said(b, () => b.cmd.config!());
    expect(lines).toContain('  sensor.rain.kind: (none) -> counter');
    expect(lines).toContain('  sensor.rain.pin: (none) -> 14');
    expect(lines).toContain('  sensor.rain.pollMs: (none) -> 10');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    b.rt.stop();
  });
});

describe('discard()', () => {
  it('with nothing pending says so', () => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.discard!())).toEqual(['nothing to discard: no unsaved changes']);
    b.rt.stop();
  });
});

describe("help('keys')", () => {
  it('cuts no rule or default short', () => {
    const { b } = fresh();
    const keys = said(b, () => b.cmd.help!('keys'));
    expect(keys.filter((l) => l.endsWith('\u2026'))).toEqual([]);
    for (const l of keys) expect(l.length).toBeLessThanOrEqual(80);
    const i = keys.findIndex((l) => l.startsWith('output.<name>.field'));
    expect(keys.slice(i + 1, i + 3)).toEqual(["    empty for a Value device, or a JSON field like 'vent' or 'vents.north'", "    default ''"]);
    b.rt.stop();
  });
});
