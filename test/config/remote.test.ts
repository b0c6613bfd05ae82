// The configuration device's settings (remote.id, remote.pin,
// remote.pollMs): their defaults and rules, the PIN masked like every
// device PIN, a device this board writes refused, and a last-known-good
// copy made before they existed still usable.
import { describe, expect, it } from 'vitest';
import { CODEC } from '../../src/config/codec';
import { describeConfig } from '../../src/config/describe';
import { defaultConfig } from '../../src/config/defaults';
import { createConfigStore } from '../../src/config/store';
import { validateConfig } from '../../src/config/validate';
import { testConfig } from '../fakes/config';
import { createMemoryFileStore } from '../fakes/files';

const saved = (over: Record<string, unknown>): Record<string, unknown> => ({ ...(JSON.parse(CODEC.text(testConfig())) as Record<string, unknown>), ...over });

describe('remote.*', () => {
  it('default to off, a read every 15 minutes', () => {
    expect(defaultConfig().remote).toEqual({ id: 0, pin: 0, pollMs: 900000 });
    const r = validateConfig(saved({}));
    expect(r.ok && r.config.remote).toEqual({ id: 0, pin: 0, pollMs: 900000 });
    const set = validateConfig(saved({ remote: { id: 40, pin: 4040, pollMs: 60000 } }));
    expect(set.ok && set.config.remote).toEqual({ id: 40, pin: 4040, pollMs: 60000 });
  });

  it.each([
    [{ pollMs: 59999 }, 'remote.pollMs: must be a whole number from 60000 to 86400000'],
    [{ id: -1 }, 'remote.id: 0 (off) or a whole number from 1 to 2147483647'],
    [{ pin: 'x' }, 'remote.pin: must be a whole number from 0 to 2147483647'],
    [{ url: 'http://x' }, 'remote.url: unknown key'],
  ])('refuses %j in one line naming the key and the rule', (remote, line) => {
    expect(validateConfig(saved({ remote }))).toEqual({ ok: false, errors: [line] });
  });

  it('refuses a device this board writes: its readings would overwrite the configuration', () => {
    const c = testConfig();
    expect(validateConfig(saved({ remote: { id: c.devices[1]!.deviceId, pin: 1 } }))).toEqual({ ok: false, errors: ["remote.id: id 2 is device tj's, which this board writes; the configuration needs a JSON device of its own"] });
    expect(validateConfig(saved({ health: { id: 9, pin: 1 }, remote: { id: 9, pin: 1 } }))).toEqual({ ok: false, errors: ['remote.id: id 9 is health.id, which this board writes; the configuration needs a JSON device of its own'] });
  });

  it('config() masks the PIN as it masks every device PIN', () => {
    const c = testConfig();
    c.remote = { id: 40, pin: 4040, pollMs: 900000 };
    const lines = describeConfig(c);
    expect(lines).toContain('remote.id = 40');
    expect(lines).toContain('remote.pin = ***');
    expect(lines.join('\n')).not.toContain('4040');
  });

  it('a last-known-good copy an earlier firmware made (no remote) comes back with the device off', () => {
    const files = createMemoryFileStore();
    const store = createConfigStore({ files, codec: () => CODEC, checker: 'test' });
    const c = testConfig();
    expect(store.save(c)).toBeUndefined();
    expect(store.load().source).toBe('file');
    expect(store.saveLastKnownGood(c)).toBeUndefined();
    // As an earlier firmware wrote it: the same copy, without the remote section.
    const t = new TextDecoder().decode(files.contents('config.lkg.json'));
    const old = JSON.parse(t) as { config: Record<string, unknown> };
    delete old.config.remote;
    files.write('config.lkg.json', new TextEncoder().encode(JSON.stringify({ saved: CODEC.text(c), config: old.config })));
    expect(store.loadLastKnownGood()!.remote).toEqual({ id: 0, pin: 0, pollMs: 900000 });
  });
});
