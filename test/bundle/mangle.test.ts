// Short property names on the device (scripts/build/mangle.ts): one cache for
// every program of the build, made the same way at every build, and no
// renamed name ever reaches JSON on the wire or on flash.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBundle } from '../../scripts/build/build';
import { fillCache, mangleCache, MANGLED, sourceFiles } from '../../scripts/build/mangle';
import { toSaved } from '../../src/config/saved';
import { testConfig } from '../fakes/config';
import { createKalumaSim, firstBoot } from './kaluma-sim';

describe('the mangle cache', () => {
  it('is made the same way twice, from properties of the convention only, each to its own short name', async () => {
    const [a, b] = await Promise.all([fillCache(sourceFiles()), fillCache(sourceFiles())]);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const names = Object.keys(a);
    // Field's and the HTTP exchange's properties among them.
    expect(names).toEqual(expect.arrayContaining(['secret_', 'key_', 'required_', 'bodyEnd_']));
    expect(names.filter((n) => !MANGLED.test(n))).toEqual([]);
    const short = Object.values(a);
    expect(new Set(short).size).toBe(short.length);
    expect(short.filter((s) => !/^[A-Za-z_$][\w$]?$/.test(s))).toEqual([]);
  });
});

/** Every key of every object in `v`, at any depth. */
function keysOf(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) keysOf(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      keysOf(x, out);
    }
  }
  return out;
}

/** The JSON in `text`, or undefined when it is none. */
function json(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

describe('the device bundle with short property names', () => {
  let bundle = '';
  let cache: Record<string, string> = {};
  beforeAll(async () => {
    bundle = readFileSync((await buildBundle({ outfile: 'dist/mangle-agent.js' })).outfile, 'utf8');
    cache = await mangleCache();
  });

  it('names no property of the convention as written: the resident program, its part and every cold module were renamed', () => {
    const left = Object.keys(cache).filter((k) => new RegExp(`[.{,]${k.replace('$', '\\$')}[:(=;,)}\\].\\s]`).test(bundle));
    expect(left).toEqual([]);
  });

  it('writes JSON with its own keys only: config.json round-trips, the outbox and the health report name no short name', async () => {
    const cfg = testConfig('http://192.168.1.10:8080');
    cfg.health = { id: 9, pin: 9999, intervalMs: 60000 };
    const files = new Map([['/config.json', new TextEncoder().encode(JSON.stringify(toSaved(cfg)))]]);
    const first = await firstBoot(bundle, files);
    expect(first.resets).toBe(1);
    const k = createKalumaSim({ files: first.files, program: new TextEncoder().encode(bundle) });
    k.run(bundle);
    await k.advance(70000);
    // A change saved from the console: the device's config code writes the file.
    k.run("set('sensor.temp.intervalMs', 30000)");
    k.run("set('device.tj.batch', 3)");
    k.run('save()');
    expect(k.errors).toEqual([]);
    const saved = json(new TextDecoder().decode(k.files.get('/config.json')));
    cfg.sensors[0]!.intervalMs = 30000;
    cfg.devices[1]!.batch = 3;
    expect(saved).toEqual(toSaved(cfg));

    const health = k.requests.filter((r) => r.path.includes('/9/9999'));
    expect(health.length).toBeGreaterThan(0);
    expect(Object.keys(json(health[0]!.body) as object)).toEqual(expect.arrayContaining(['fw', 'board', 'uptimeS', 'outbox', 'delivery']));
    const texts = [...k.files.values()].map((b) => new TextDecoder().decode(b)).concat(k.requests.map((r) => r.body));
    const objects = texts.map(json).filter((v) => v !== null && typeof v === 'object');
    // The outbox's cursor, the boot state and the config among them.
    expect(objects.length).toBeGreaterThan(3);
    const short = new Set(Object.values(cache));
    const keys = objects.flatMap((o) => keysOf(o));
    expect(keys.filter((key) => short.has(key) || MANGLED.test(key))).toEqual([]);
    expect(k.callbackErrors).toEqual([]);
  });
});
