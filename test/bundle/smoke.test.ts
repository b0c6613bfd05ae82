// The real device bundle, unmodified, booted in a stand-in for Kaluma 1.2.1
// (see kaluma-sim.ts): it must start on its own, say what to set without a
// config, deliver with one, queue through a Wi-Fi outage, take console
// commands typed as text, and never throw inside a callback.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBundle } from '../../scripts/build';
import { toSaved } from '../../src/config/saved';
import { testConfig } from '../fakes/config';
import { createKalumaSim } from './kaluma-sim';

let bundle = '';
beforeAll(async () => {
  const r = await buildBundle({ outfile: 'dist/smoke-agent.js' });
  bundle = readFileSync(r.outfile, 'utf8');
});

function configured(): Map<string, Uint8Array> {
  const cfg = testConfig('http://192.168.1.10:8080');
  cfg.agent.watchdog = true;
  return new Map([['/config.json', new TextEncoder().encode(JSON.stringify(toSaved(cfg)))]]);
}

const KEY = testConfig().service.apiKey;

describe('the device bundle on a Kaluma stand-in', () => {
  it('boots without a config into console-only mode and says what to set', async () => {
    const k = createKalumaSim();
    expect(() => k.run(bundle)).not.toThrow();
    expect(k.out).toContain('agent: console only: not configured: set wifi.ssid, service.url, service.apiKey, device.<name>');
    for (const c of ['help', 'status', 'config', 'set', 'unset', 'save', 'provision', 'sensors', 'test', 'resume', 'reboot', 'maintenance']) {
      expect(typeof k.run(`typeof ${c}`) === 'string' && k.run(`typeof ${c}`)).toBe('function');
    }
    k.run('help()');
    k.run('status()');
    await k.advance(180000);
    expect(k.out.some((l) => l.startsWith('status()'))).toBe(true);
    expect(k.callbackErrors).toEqual([]);
    expect(k.requests).toEqual([]);
  });

  it('with a config: joins Wi-Fi and delivers value, JSON and XML writes', async () => {
    const k = createKalumaSim({ files: configured() });
    k.run(bundle);
    await k.advance(120000);
    const paths = k.requests.map((r) => `${r.method} ${r.path.replace(KEY, 'KEY').replace(/(updatedevicevalue\/KEY\/\d+\/\d+)\/[-\d.]+$/, '$1/N')}`);
    // Samples every 10 s: the groups of 0 s to 110 s are written (one write per
    // device each); the 120 s group is still on its way when the clock stops.
    expect(paths.slice(0, 3)).toEqual(['GET /api/updatedevicevalue/KEY/1/1111/N', 'POST /api/updatedevicejson/KEY/2/2222', 'POST /api/updatedevicexml/KEY/3/3333']);
    expect(paths.length).toBe(36);
    expect(JSON.parse(k.requests[1]!.body)).toMatchObject({ seq: 2, uptime_ms: 0 });
    expect(k.out).toContain('watchdog: armed');
    expect(k.errors).toEqual([]);
    expect(k.callbackErrors).toEqual([]);
  });

  it('queues readings on flash while the access point is away and delivers them in order after', async () => {
    const k = createKalumaSim({ files: configured() });
    k.wifi.ap = false;
    k.run(bundle);
    await k.advance(300000);
    expect(k.requests).toEqual([]);
    expect([...k.files.keys()].filter((p) => p.startsWith('/q/seg-')).length).toBeGreaterThan(0);
    k.wifi.ap = true;
    await k.advance(600000);
    const seqs = k.requests.filter((r) => r.method === 'POST' && r.path.includes('json')).map((r) => (JSON.parse(r.body) as { seq: number }).seq);
    // 0 s to 900 s: 91 groups; the last JSON record is still in its 50 ms coalescing window.
    expect(seqs.length).toBe(90);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(k.callbackErrors).toEqual([]);
  });

  it('takes console commands typed as text', async () => {
    const k = createKalumaSim({ files: configured() });
    k.run(bundle);
    k.run("set('agent.requestTimeoutMs', 'soon')");
    expect(k.errors).toEqual(['agent.requestTimeoutMs: must be a whole number from 1000 to 60000']);
    k.run("set('sensor.temp.intervalMs', 30000)");
    k.run('save()');
    expect(k.out).toContain('saved; agent running');
    expect(new TextDecoder().decode(k.files.get('/config.json'))).toContain('30000');
    k.run('status()');
    expect(k.out.some((l) => /^agent {5}0\.1\.0, running, boot 1/.test(l))).toBe(true);
    await k.advance(60000);
    expect(k.callbackErrors).toEqual([]);
  });
});
