// The simulated board's data on the PC is its owner's alone: its config.json
// holds the API key and the Wi-Fi password. Saved through the board's own
// config store, it is 0600 in 0700 directories; a board directory an earlier
// version left readable is made private when npm start opens it.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHostPlatform } from '../../host/platform';
import { CODEC } from '../../src/config/codec';
import { createConfigStore } from '../../src/config/store';
import { testConfig } from '../fakes/config';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'sim-files-'));
  dirs.push(d);
  return d;
}
const mode = (p: string): number => statSync(p).mode & 0o777;

/** Every path under `dir` with its mode, for one comparison that names what is wrong. */
function modes(dir: string, at = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(join(dir, at), { withFileTypes: true })) {
    const p = at ? at + '/' + e.name : e.name;
    out[p] = mode(join(dir, p)).toString(8);
    if (e.isDirectory()) Object.assign(out, modes(dir, p));
  }
  return out;
}

describe("the simulated board's files", () => {
  it('config.json (with the key and the Wi-Fi password), every other file and the storage are 0600, their directories 0700', () => {
    const sim = join(tmp(), 'sim');
    const hp = createHostPlatform({ dataDir: sim, ssid: 'sim-net' });
    const store = createConfigStore({ codec: () => CODEC, checker: 'test', files: hp.files });
    expect(store.save(testConfig())).toBeUndefined();
    hp.files.mkdir('outbox');
    hp.files.append('outbox/0', new Uint8Array([1, 2, 3]));
    hp.kv.set('WIFI_PASSWORD', 'secret-pass');
    expect(mode(sim)).toBe(0o700);
    const all = modes(sim);
    expect(all).toMatchObject({ files: '700', 'files/config.json': '600', 'files/outbox': '700', 'files/outbox/0': '600', 'kv.json': '600' });
    // And whatever else the store wrote (its last good copy).
    for (const [p, m] of Object.entries(all)) expect([p, m]).toEqual([p, statSync(join(sim, p)).isDirectory() ? '700' : '600']);
  });

  it('a board directory an earlier version left readable by others is made private when it is opened', () => {
    const sim = join(tmp(), 'sim');
    mkdirSync(join(sim, 'files'), { recursive: true });
    writeFileSync(join(sim, 'files', 'config.json'), '{}', { mode: 0o644 });
    writeFileSync(join(sim, 'kv.json'), '{}', { mode: 0o644 });
    chmodSync(sim, 0o755);
    chmodSync(join(sim, 'files'), 0o755);
    chmodSync(join(sim, 'files', 'config.json'), 0o644);
    createHostPlatform({ dataDir: sim, ssid: 'sim-net' });
    expect({ sim: mode(sim).toString(8), ...modes(sim) }).toEqual({ sim: '700', files: '700', 'files/config.json': '600', 'kv.json': '600' });
  });
});
