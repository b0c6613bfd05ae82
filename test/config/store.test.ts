import { describe, expect, it } from 'vitest';
import { createConfigStore } from '../../src/config/store';
import type { AgentConfig } from '../../src/config/types';
import { defaultConfig, validateConfig } from '../../src/config/validate';
import type { Log } from '../../src/ports/ports';
import { engineDecoder } from '../fakes/engine-decoder';
import { createMemoryFileStore } from '../fakes/files';
import { CODEC } from '../../src/config/codec';

function fakeLog(): Log & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (l) => void lines.push('info ' + l), error: (l) => void lines.push('error ' + l) };
}

function sample(over: Record<string, unknown> = {}): AgentConfig {
  const r = validateConfig({
    wifi: { ssid: 'home', password: 'wifi-secret-pass' },
    service: { url: 'http://192.168.1.10:8080', apiKey: 'APIKEY0123456789' },
    agent: { requestTimeoutMs: 20000 },
    sensors: [
      { name: 'temp', kind: 'temperature', filters: 'median:5,ewma:0.5' },
      { name: 'light', kind: 'analog', pin: 26, points: [[0, 0], [3.3, 100]] },
    ],
    devices: [{ name: 'd1', deviceId: 1, devicePin: 1234, format: 'JSON', sensors: ['temp', 'light'], batch: 4 }],
    ...over,
  });
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.config;
}

const text = (b: Uint8Array | undefined): string | undefined => b && new TextDecoder().decode(b);
const latin1 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
const put = (files: ReturnType<typeof createMemoryFileStore>, path: string, s: string) => files.write(path, new TextEncoder().encode(s));

describe('load and save', () => {
  it('boots on defaults when there is no file', () => {
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files: createMemoryFileStore() });
    expect(store.load()).toEqual({ config: defaultConfig(), source: 'defaults', errors: [] });
  });

  it('leaves a file that needs the checker for later when the checker is not to be loaded now, and says nothing yet', () => {
    const files = createMemoryFileStore();
    createConfigStore({ codec: () => CODEC, checker: 'old', files }).save(sample());
    let now = false;
    const log = fakeLog();
    const store = createConfigStore({ codec: () => (now ? CODEC : undefined), checker: 'test', files, log });
    expect(store.load()).toEqual({ config: defaultConfig(), source: 'defaults', errors: [], unchecked: true });
    expect(log.lines).toEqual([]);
    expect(store.save(sample())).toBe('config.json: not saved (the checker is not available yet)');
    now = true;
    expect(store.load()).toEqual({ config: sample(), source: 'file', errors: [] });
    // Checked once: the next boot needs no checker at all.
    now = false;
    expect(store.load()).toEqual({ config: sample(), source: 'file', errors: [] });
  });

  it('reloads exactly what was saved', () => {
    const files = createMemoryFileStore();
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    expect(store.save(sample())).toBeUndefined();
    expect(store.load()).toEqual({ config: sample(), source: 'file', errors: [] });
    expect(files.paths()).toEqual(['config.json', 'config.ok']);
  });

  it('keeps only non-default values, readable', () => {
    const files = createMemoryFileStore();
    createConfigStore({ codec: () => CODEC, checker: 'test', files }).save(sample());
    expect(JSON.parse(text(files.contents('config.json')) as string)).toEqual({
      wifi: { ssid: 'home', password: 'wifi-secret-pass' },
      service: { url: 'http://192.168.1.10:8080', apiKey: 'APIKEY0123456789' },
      agent: { requestTimeoutMs: 20000 },
      sensors: [
        { name: 'temp', kind: 'temperature', filters: 'median:5,ewma:0.5' },
        { name: 'light', kind: 'analog', pin: 26, points: [[0, 0], [3.3, 100]] },
      ],
      devices: [{ name: 'd1', deviceId: 1, devicePin: 1234, format: 'JSON', sensors: ['temp', 'light'], batch: 4 }],
    });
    expect(text(files.contents('config.json'))).toContain('\n  "wifi": {\n    "ssid": "home",');
  });

  it('saves the defaults as an empty object', () => {
    const files = createMemoryFileStore();
    createConfigStore({ codec: () => CODEC, checker: 'test', files }).save(defaultConfig());
    expect(text(files.contents('config.json'))).toBe('{}\n');
  });

  it('writes a temporary file and renames it over the config', () => {
    const files = createMemoryFileStore();
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    store.save(sample());
    // config.json, then its checked form config.ok
    expect(files.counts.writes).toBe(2);
    expect(files.counts.renames).toBe(2);
  });

  it('a failed write of the temporary file leaves the old config intact', () => {
    const files = createMemoryFileStore();
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    store.save(sample());
    const before = text(files.contents('config.json'));
    files.tearNext(10);
    expect(store.save(sample({ board: 'pico2-w' }))).toBe('config.json: not saved (torn write)');
    expect(text(files.contents('config.json'))).toBe(before);
    expect(files.paths()).toEqual(['config.json', 'config.ok']);
    expect(store.load().config).toEqual(sample());
  });

  it('a power cut during the save leaves the old config readable', () => {
    const files = createMemoryFileStore();
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    store.save(sample());
    files.powerCutAfter(50);
    expect(store.save(sample({ board: 'pico2-w' }))).toBe('config.json: not saved (power cut)');
    files.powerOn();
    expect(store.load()).toEqual({ config: sample(), source: 'file', errors: [] });
  });

  it('uses the given path', () => {
    const files = createMemoryFileStore();
    files.mkdir('etc');
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files, path: 'etc/agent.json' });
    store.save(sample());
    store.saveLastKnownGood(sample());
    expect(files.paths().sort()).toEqual(['etc/agent.json', 'etc/agent.lkg.json', 'etc/agent.ok']);
  });

  it('boots on defaults with every error when the saved file is invalid', () => {
    const files = createMemoryFileStore();
    put(files, 'config.json', JSON.stringify({ wifi: { password: 'short' }, agent: { watchdog: 'no' }, extra: 1 }));
    const log = fakeLog();
    const got = createConfigStore({ codec: () => CODEC, checker: 'test', files, log }).load();
    expect(got.config).toEqual(defaultConfig());
    expect(got.source).toBe('defaults');
    expect(got.errors).toEqual([
      'extra: unknown key',
      'wifi.password: 8-63 characters, or empty for an open network',
      'agent.watchdog: must be true or false',
    ]);
    expect(log.lines).toEqual([
      'error config: config.json is invalid; running on defaults until fixed',
      'error config: extra: unknown key',
      'error config: wifi.password: 8-63 characters, or empty for an open network',
      'error config: agent.watchdog: must be true or false',
    ]);
  });

  it('boots on defaults when the file is not JSON', () => {
    const files = createMemoryFileStore();
    put(files, 'config.json', '{"wifi": ');
    const got = createConfigStore({ codec: () => CODEC, checker: 'test', files }).load();
    expect(got.config).toEqual(defaultConfig());
    expect(got.source).toBe('defaults');
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]).toMatch(/^config\.json: unreadable or not JSON \(.+\)$/);
  });

  it('boots on defaults, naming the file, when it is not UTF-8, and never hands it to the decoder', () => {
    const files = createMemoryFileStore();
    const seen = engineDecoder();
    files.write('config.json', latin1('{"wifi": {"ssid": "café"}}'));
    const log = fakeLog();
    const got = createConfigStore({ codec: () => CODEC, checker: 'test', files, log }).load();
    expect(got).toEqual({ config: defaultConfig(), source: 'defaults', errors: ['config.json: not UTF-8 text'] });
    expect(log.lines).toEqual([
      'error config: config.json is invalid; running on defaults until fixed',
      'error config: config.json: not UTF-8 text',
    ]);
    expect(seen).toEqual([]);
  });

  it('boots on defaults when the file cannot be read', () => {
    const files = createMemoryFileStore();
    files.read = () => {
      throw new Error('EIO');
    };
    const got = createConfigStore({ codec: () => CODEC, checker: 'test', files }).load();
    expect(got).toEqual({ config: defaultConfig(), source: 'defaults', errors: ['config.json: unreadable (EIO)'] });
  });
});

// Kaluma's storage keys are imported once at the console (importWifi());
// the store has no way to read them, so the file alone says what the Wi-Fi is.
describe('Wi-Fi comes from the file alone', () => {
  it('stays empty when the file has none', () => {
    expect(createConfigStore({ codec: () => CODEC, checker: 'test', files: createMemoryFileStore() }).load().config.wifi).toEqual({ ssid: '', password: '' });
  });

  it('an open network stays open', () => {
    const files = createMemoryFileStore();
    put(files, 'config.json', JSON.stringify({ wifi: { ssid: 'cafe' } }));
    expect(createConfigStore({ codec: () => CODEC, checker: 'test', files }).load()).toMatchObject({ config: { wifi: { ssid: 'cafe', password: '' } }, source: 'file', errors: [] });
  });
});

describe('last known good', () => {
  it('is undefined until saved, then reloads what was saved', () => {
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files: createMemoryFileStore() });
    expect(store.loadLastKnownGood()).toBeUndefined();
    store.save(sample());
    expect(store.saveLastKnownGood(sample())).toBeUndefined();
    expect(store.loadLastKnownGood()).toEqual(sample());
  });

  it('copies the saved text from flash when it is made, and makes none when that text cannot be read', () => {
    const files = createMemoryFileStore();
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    store.save(sample());
    const text = new TextDecoder().decode(files.contents('config.json'));
    expect(store.saveLastKnownGood(sample())).toBeUndefined();
    // The copy is JSON, and holds the saved text's exact bytes after its stamp.
    const copy = new TextDecoder().decode(files.contents('config.lkg.json'));
    expect(JSON.parse(copy).saved).toEqual(JSON.parse(text));
    expect(copy.slice(copy.indexOf('"saved":') + 8, copy.indexOf('"saved":') + 8 + text.length)).toBe(text);
    // The running text is not kept in RAM: gone from flash, the copy cannot be made.
    store.save(sample({ board: 'pico2-w' }));
    files.remove('config.json');
    expect(store.saveLastKnownGood(sample({ board: 'pico2-w' }))).toBe('config.json: unreadable; no last-known-good copy made');
    expect(store.loadLastKnownGood()).toEqual(sample());
  });

  it('reads a copy an earlier firmware made, which knows no outputs, as one with none', () => {
    const files = createMemoryFileStore();
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    store.save(sample());
    expect(store.saveLastKnownGood(sample())).toBeUndefined();
    const copy = JSON.parse(new TextDecoder().decode(files.contents('config.lkg.json'))) as { config: Record<string, unknown> };
    expect(copy.config.outputs).toEqual([]);
    delete copy.config.outputs;
    // The earlier form: the saved text as a string, no stamp.
    files.write('config.lkg.json', new TextEncoder().encode(JSON.stringify({ saved: JSON.stringify(copy.config), config: copy.config })));
    expect(store.loadLastKnownGood()).toEqual(sample());
  });

  it('writes only when it differs from the stored copy', () => {
    const files = createMemoryFileStore();
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    store.save(sample());
    const saving = files.counts.writes;
    store.saveLastKnownGood(sample());
    store.saveLastKnownGood(sample());
    expect(files.counts.writes - saving).toBe(1);
    store.save(sample({ board: 'pico2-w' }));
    store.saveLastKnownGood(sample({ board: 'pico2-w' }));
    expect(files.counts.writes - saving).toBe(4);
    expect(files.paths().sort()).toEqual(['config.json', 'config.lkg.json', 'config.ok']);
  });

  it('once a configuration is known to be on flash as last-known-good, asking again reads and writes nothing (it is asked after every delivery)', () => {
    const files = createMemoryFileStore();
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    const cfg = sample();
    store.save(cfg);
    expect(store.saveLastKnownGood(cfg)).toBeUndefined();
    const reads = files.counts.reads;
    const writes = files.counts.writes;
    for (let i = 0; i < 5; i++) expect(store.saveLastKnownGood(cfg)).toBeUndefined();
    expect([files.counts.reads - reads, files.counts.writes - writes]).toEqual([0, 0]);
    // A fresh boot's store finds the same copy on flash by comparing, without writing it again.
    const next = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    next.load();
    const w2 = files.counts.writes;
    expect(next.saveLastKnownGood(next.load().config)).toBeUndefined();
    expect(files.counts.writes - w2).toBe(0);
  });

  it('going back puts the saved form back too, so the board boots on it without the checker', () => {
    const files = createMemoryFileStore();
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    store.save(sample());
    store.saveLastKnownGood(sample());
    const good = text(files.contents('config.json'));
    store.save(sample({ board: 'pico2-w' }));
    expect(store.loadLastKnownGood()).toEqual(sample());
    expect(text(files.contents('config.json'))).toBe(good);
    expect(createConfigStore({ codec: () => 'cold code missing', checker: 'test', files }).load()).toEqual({ config: sample(), source: 'file', errors: [] });
  });

  it('is undefined when the stored copy is invalid', () => {
    const files = createMemoryFileStore();
    put(files, 'config.lkg.json', JSON.stringify({ board: 'uno' }));
    expect(createConfigStore({ codec: () => CODEC, checker: 'test', files }).loadLastKnownGood()).toBeUndefined();
    put(files, 'config.lkg.json', 'not json');
    expect(createConfigStore({ codec: () => CODEC, checker: 'test', files }).loadLastKnownGood()).toBeUndefined();
  });

  it('is undefined when the stored copy is not UTF-8, and the next save replaces it', () => {
    const files = createMemoryFileStore();
    engineDecoder();
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    store.save(sample());
    store.saveLastKnownGood(sample());
    const good = files.contents('config.lkg.json')!;
    files.write('config.lkg.json', latin1(text(good)!.replace('home', 'h\u00f6me')));
    expect(store.loadLastKnownGood()).toBeUndefined();
    expect(store.saveLastKnownGood(sample())).toBeUndefined();
    expect(files.contents('config.lkg.json')).toEqual(good);
    expect(store.loadLastKnownGood()).toEqual(sample());
  });

  it('does not go back to a copy changed on flash, and the next save replaces it', () => {
    const files = createMemoryFileStore();
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    store.save(sample());
    store.saveLastKnownGood(sample());
    const good = files.contents('config.lkg.json')!;
    // Same size, still UTF-8 and JSON: only the CRC after the stamp tells.
    files.write('config.lkg.json', new TextEncoder().encode(text(good)!.replace('"home"', '"hone"')));
    expect(store.loadLastKnownGood()).toBeUndefined();
    const fresh = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    fresh.load();
    expect(fresh.saveLastKnownGood(fresh.load().config)).toBeUndefined();
    expect(files.contents('config.lkg.json')).toEqual(good);
  });

  it('still goes back to a copy made before stamps (the saved text as a string)', () => {
    const files = createMemoryFileStore();
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    store.save(sample());
    const old = text(files.contents('config.json'))!;
    store.save(sample({ board: 'pico2-w' }));
    put(files, 'config.lkg.json', JSON.stringify({ saved: old, config: sample() }));
    expect(store.loadLastKnownGood()).toEqual(sample());
    expect(text(files.contents('config.json'))).toBe(old);
  });

  it('a failed write keeps the previous copy', () => {
    const files = createMemoryFileStore();
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
    store.save(sample());
    store.saveLastKnownGood(sample());
    store.save(sample({ board: 'pico2-w' }));
    files.tearNext(3);
    expect(store.saveLastKnownGood(sample({ board: 'pico2-w' }))).toBe('config.lkg.json: not saved (torn write)');
    expect(store.loadLastKnownGood()).toEqual(sample());
  });
});

// The checker (schema and validator) is cold code on the board: a file it
// has checked is read without it; anything else waits for it.
describe('checked once, then read without the checker', () => {
  const counting = () => {
    const c = { calls: 0, codec: () => (c.calls++, CODEC) };
    return c;
  };

  it('boots a saved configuration without the checker', () => {
    const files = createMemoryFileStore();
    createConfigStore({ codec: () => CODEC, checker: 'b1', files }).save(sample());
    const c = counting();
    expect(createConfigStore({ codec: c.codec, checker: 'b1', files }).load()).toEqual({ config: sample(), source: 'file', errors: [] });
    expect(c.calls).toBe(0);
  });

  it('checks a file written behind its back (flash.sh --config) once, then reads it without the checker', () => {
    const files = createMemoryFileStore();
    put(files, 'config.json', JSON.stringify({ wifi: { ssid: 'cafe' } }));
    const c = counting();
    expect(createConfigStore({ codec: c.codec, checker: 'b1', files }).load()).toMatchObject({ config: { wifi: { ssid: 'cafe' } }, source: 'file', errors: [] });
    expect(c.calls).toBe(1);
    expect(createConfigStore({ codec: () => 'gone', checker: 'b1', files }).load()).toMatchObject({ config: { wifi: { ssid: 'cafe' } }, source: 'file' });
  });

  it('says in one line that an unchecked file waits for the checker, and boots on defaults', () => {
    const files = createMemoryFileStore();
    put(files, 'config.json', JSON.stringify({ wifi: { ssid: 'cafe' } }));
    const log = fakeLog();
    const got = createConfigStore({ codec: () => 'cold code check: corrupt on flash (CRC)', checker: 'b1', files, log }).load();
    expect(got).toEqual({ config: defaultConfig(), source: 'defaults', errors: ['config.json: not checked yet, and the checker is unavailable (cold code check: corrupt on flash (CRC))'] });
    expect(files.paths()).toEqual(['config.json']);
  });

  it('checks again after a build with another checker, a changed file or a damaged checked copy', () => {
    const files = createMemoryFileStore();
    createConfigStore({ codec: () => CODEC, checker: 'b1', files }).save(sample());
    const c = counting();
    createConfigStore({ codec: c.codec, checker: 'b2', files }).load();
    expect(c.calls).toBe(1);
    put(files, 'config.json', text(files.contents('config.json'))!.replace('home', 'away'));
    expect(createConfigStore({ codec: c.codec, checker: 'b2', files }).load().config.wifi.ssid).toBe('away');
    expect(c.calls).toBe(2);
    const ok = text(files.contents('config.ok'))!;
    put(files, 'config.ok', ok.replace('"away"', '"AWAY"'));
    expect(createConfigStore({ codec: c.codec, checker: 'b2', files }).load().config.wifi.ssid).toBe('away');
    expect(c.calls).toBe(3);
  });

  it('refuses to save without the checker, changing nothing', () => {
    const files = createMemoryFileStore();
    createConfigStore({ codec: () => CODEC, checker: 'b1', files }).save(sample());
    const before = text(files.contents('config.json'));
    expect(createConfigStore({ codec: () => 'cold code check: no program on flash', checker: 'b1', files }).save(sample({ board: 'pico2-w' }))).toBe(
      'config.json: not saved (cold code check: no program on flash)',
    );
    expect(text(files.contents('config.json'))).toBe(before);
  });
});
