// The real device bundle, unmodified, booted in a stand-in for Kaluma 1.2.1
// (see kaluma-sim.ts): it must start on its own, say what to set without a
// config, deliver with one, queue through a Wi-Fi outage, take console
// commands typed as text, and never throw inside a callback.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBundle } from '../../scripts/build/build';
import { toSaved } from '../../src/config/saved';
import { testConfig } from '../fakes/config';
import type { Peer, PeerConn } from '../fakes/kaluma/net';
import { httpPeer } from '../fakes/kaluma/net';
import { createKalumaSim, firstBoot } from './kaluma-sim';

let bundle = '';
beforeAll(async () => {
  // SMOKE_BUNDLE runs these tests on another build (e.g. an older commit's, to show what they catch).
  const other = process.env['SMOKE_BUNDLE'];
  bundle = readFileSync(other || (await buildBundle({ outfile: 'dist/smoke-agent.js' })).outfile, 'utf8');
});

/** The bundle as `.flash -w` stores it in the program area, where its cold code is read from. */
const stored = (): Uint8Array => new TextEncoder().encode(bundle);

/** The test config as flash.sh --config stores it; `edit` changes it first (the watchdog is on unless it says otherwise). */
function configured(edit?: (c: ReturnType<typeof testConfig>) => void): Map<string, Uint8Array> {
  const cfg = testConfig('http://192.168.1.10:8080');
  cfg.agent.watchdog = true;
  if (edit) edit(cfg);
  return new Map([['/config.json', new TextEncoder().encode(JSON.stringify(toSaved(cfg)))]]);
}

const KEY = testConfig().service.apiKey;

/**
 * The first boot after a config was flashed checks it once the boot is done
 * (the checker needs the heap the boot holds) and restarts the board: the
 * files that leave, where the next boot finds the checked form.
 */
async function checkedFiles(files = configured()): Promise<Map<string, Uint8Array>> {
  const first = await firstBoot(bundle, files);
  expect(first.out).toContain('agent: console only: checking the saved configuration; the agent starts after a restart');
  expect(first.out).toContain('agent: console only: restarting in 1 s to start the agent');
  expect(first.resets).toBe(1);
  expect(first.requests).toEqual([]);
  expect([...first.files.keys()]).toContain('/config.ok');
  expect(first.callbackErrors).toEqual([]);
  return first.files;
}

describe('the device bundle on a Kaluma stand-in', () => {
  it('boots without a config into console-only mode and says what to set', async () => {
    const k = createKalumaSim({ program: stored() });
    expect(() => k.run(bundle)).not.toThrow();
    // With no config the boot runs at the loop's next turn, once the
    // program's top level has returned (src/main.ts), before any typed line.
    expect(k.out).toEqual([]);
    await k.advance(1);
    expect(k.out).toContain('agent: console only: not configured: set wifi.ssid, service.url, service.apiKey, device.<name>');
    for (const c of ['help', 'status', 'config', 'set', 'unset', 'save', 'provision', 'sensors', 'test', 'resume', 'reboot', 'maintenance']) {
      expect(typeof k.run(`typeof ${c}`) === 'string' && k.run(`typeof ${c}`)).toBe('function');
    }
    k.run('help()');
    k.run('status()');
    await k.advance(180000);
    expect(k.out.some((l) => l.startsWith('status()'))).toBe(true);
    expect(k.callbackErrors).toEqual([]);
    expect(k.harm()).toEqual([]);
    expect(k.storageReads).toEqual([]);
    expect(k.requests).toEqual([]);
  });

  it('with a config: joins Wi-Fi and delivers value, JSON and XML writes', async () => {
    const k = createKalumaSim({ files: await checkedFiles(), program: stored() });
    k.run(bundle);
    await k.advance(120000);
    const paths = k.requests.map((r) => `${r.method} ${r.path.replace(KEY, 'KEY').replace(/(updatedevicevalue\/KEY\/\d+\/\d+)\/[-\d.]+$/, '$1/N')}`);
    // Samples every 10 s: the groups of 0 s to 110 s are written (one write per
    // device each); the 120 s group is still on its way when the clock stops.
    expect(paths.slice(0, 3)).toEqual(['GET /api/updatedevicevalue/KEY/1/1111/N', 'POST /api/updatedevicejson/KEY/2/2222', 'POST /api/updatedevicexml/KEY/3/3333']);
    expect(paths.length).toBe(36);
    // Timers fire on the timers port's 10 ms tick: the first sample is at 10 ms.
    expect(JSON.parse(k.requests[1]!.body)).toMatchObject({ seq: 2, uptime_ms: 10 });
    expect(k.out).toContain('watchdog: armed');
    expect(k.errors).toEqual([]);
    expect(k.callbackErrors).toEqual([]);
    expect(k.harm()).toEqual([]);
    expect(k.storageReads).toEqual([]);
  });

  it('queues readings on flash while the access point is away and delivers them in order after', async () => {
    const k = createKalumaSim({ files: await checkedFiles(), program: stored() });
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
    expect(k.harm()).toEqual([]);
    expect(k.storageReads).toEqual([]);
  });

  it('rides out a flash that refuses writes: no file handle leaks in Kaluma, every reading delivered in order after', async () => {
    const k = createKalumaSim({ files: await checkedFiles(), program: stored() });
    k.run(bundle);
    await k.advance(15000);
    k.fs.refuse('write', 20);
    await k.advance(60000);
    k.fs.accept();
    await k.advance(300000);
    const seqs = k.requests.filter((r) => r.method === 'POST' && r.path.includes('json')).map((r) => (JSON.parse(r.body) as { seq: number }).seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    // 0 s to 375 s, every 10 s: 38 groups; the last may still be on its way.
    expect(seqs.length).toBeGreaterThanOrEqual(37);
    expect(new Set(seqs).size).toBe(seqs.length);
    // Backed off: a few tries in that minute, not one per record (18 records were made in it).
    expect(k.fs.counts.refused).toBeGreaterThan(0);
    expect(k.fs.counts.refused).toBeLessThanOrEqual(5);
    expect(k.errors.filter((l) => /lost|dropped/.test(l))).toEqual([]);
    expect(k.fs.handles()).toBe(0);
    expect(k.harm()).toEqual([]);
  });

  it("lets the agent's code go in console-only mode, and restarts into the agent once a save completes the config", async () => {
    const cfg = testConfig('http://192.168.1.10:8080');
    cfg.service.apiKey = '';
    const files = new Map([['/config.json', new TextEncoder().encode(JSON.stringify(toSaved(cfg)))]]);
    const k = createKalumaSim({ files, program: stored() });
    k.run(bundle);
    // A board with a config boots at the loop's next turn too (src/main.ts).
    expect(k.out).toEqual([]);
    await k.advance(1);
    // A config not checked yet is checked once the boot is done; an incomplete one needs no restart.
    expect(k.out).toContain('agent: console only: checking the saved configuration; the agent starts after a restart');
    await k.advance(100);
    expect(k.out).toContain('agent: console only: not configured: set service.apiKey');
    k.run(`set('service.apiKey', '${KEY}')`);
    k.run('save()');
    expect(k.errors).toEqual([]);
    expect(k.out).toContain('saved; agent console-only: restarting in 1 s to start the agent');
    expect(k.resets).toBe(0);
    await k.advance(1500);
    expect(k.resets).toBe(1);
    // The next boot, on the same flash, runs the agent; the restart was asked for, so it does not count toward safe mode.
    const next = createKalumaSim({ files: k.files, program: stored() });
    next.run(bundle);
    await next.advance(20000);
    expect(next.out.some((l) => /rapid|safe mode/i.test(l))).toBe(false);
    expect(next.requests.length).toBeGreaterThan(0);
    expect(next.callbackErrors).toEqual([]);
    expect(next.harm()).toEqual([]);
  });

  it('takes console commands typed as text', async () => {
    const k = createKalumaSim({ files: await checkedFiles(), program: stored() });
    k.run(bundle);
    k.run("set('agent.requestTimeoutMs', 'soon')");
    expect(k.errors).toEqual(['agent.requestTimeoutMs: must be a whole number from 1000 to 60000']);
    k.run("set('sensor.temp.intervalMs', 30000)");
    k.run('save()');
    // The running agent's maker was let go: a saved change restarts the board into it.
    expect(k.out).toContain('saved; agent console-only: restarting in 1 s to start the agent');
    expect(new TextDecoder().decode(k.files.get('/config.json'))).toContain('30000');
    await k.advance(1500);
    expect(k.resets).toBe(1);
    expect(k.callbackErrors).toEqual([]);
    expect(k.harm()).toEqual([]);
    const next = createKalumaSim({ files: k.files, program: stored() });
    next.run(bundle);
    await next.advance(1);
    next.run('status()');
    expect(next.out.some((l) => /^agent {5}0\.1\.0, running, boot 3/.test(l))).toBe(true);
    await next.advance(60000);
    expect(next.requests.length).toBeGreaterThan(0);
    expect(next.callbackErrors).toEqual([]);
    expect(next.harm()).toEqual([]);
    expect(next.storageReads).toEqual([]);
  });
});

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 13\r\nDate: Sun, 22 Nov 2026 08:05:00 GMT\r\n\r\nValue updated';

/**
 * A service that misbehaves in turn: answers, refuses the connection, never
 * answers, resets mid-reply, answers in bytes that are not UTF-8, answers and
 * sends its FIN only 40 ms later.
 */
function unreliable(): Peer & { answered: number; later: (ms: number, cb: () => void) => void } {
  const faults = ['ok', 'refuse', 'silent', 'reset', 'latin1', 'late-fin'];
  let n = 0;
  const bufs = new Map<PeerConn, string>();
  const fault = new Map<PeerConn, string>();
  const peer = {
    answered: 0,
    later: (_ms: number, cb: () => void): void => cb(),
    connect(c: PeerConn) {
      const f = faults[n++ % faults.length]!;
      fault.set(c, f);
      if (f === 'refuse') c.refuse();
      else c.accept();
    },
    data(c: PeerConn, bytes: Uint8Array) {
      const got = (bufs.get(c) || '') + String.fromCharCode(...bytes);
      bufs.set(c, got);
      const end = got.indexOf('\r\n\r\n');
      const cl = /\r\ncontent-length: *(\d+)/i.exec(got.slice(0, end));
      if (end < 0 || got.length < end + 4 + (cl ? Number(cl[1]) : 0)) return;
      const f = fault.get(c);
      if (f === 'silent') return;
      if (f === 'reset') return (c.send(OK.slice(0, 30)), c.reset());
      if (f === 'latin1') return (c.send('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nd\xe9j\xe0'), c.fin());
      peer.answered++;
      c.send(OK);
      if (f === 'late-fin') peer.later(40, () => c.fin());
      else c.fin();
    },
  };
  return peer;
}

describe('the device bundle against a service that fails in every way the runtime mishandles', () => {
  it('times out, abandons refused and reset connections, refuses non-UTF-8 replies, and harms neither the timers nor the TCP stack', async () => {
    const peer = unreliable();
    const k = createKalumaSim({ files: await checkedFiles(), peer, program: stored() });
    peer.later = (ms, cb) => k.timers.after(ms, cb);
    k.run(bundle);
    await k.advance(4 * 60 * 1000);
    expect(peer.answered).toBeGreaterThan(3);
    expect(k.harm()).toEqual([]);
    expect(k.callbackErrors).toEqual([]);
    expect(k.storageReads).toEqual([]);
    // No handle id per request or per write: minutes of traffic took a handful.
    expect(k.timers.idsTaken()).toBeLessThan(10);
    k.run('status()');
    const http = k.out.filter((l) => l.startsWith('http '));
    expect(http.length).toBe(1);
    expect(http[0]).toMatch(/^http {6}\d+ exchanges; failed .*timeout \d+.*encoding \d+.*; connections abandoned [1-9]\d*$/);
    expect(k.resets).toBe(0);
    // Two connections in six are dropped by the TCP stack: the board restarts in order at 12.
    await k.advance(30 * 60 * 1000);
    expect(k.resets).toBe(1);
    expect(k.harm()).toEqual([]);
  });

  it('restarts the board in order once 12 refused connections hold their slots, with every reading still on flash', async () => {
    const k = createKalumaSim({ files: await checkedFiles(), peer: { connect: (c) => c.refuse() }, program: stored() });
    k.run(bundle);
    await k.advance(4 * 3600 * 1000);
    expect(k.resets).toBe(1);
    expect(k.errors).toContain('net: 12 connections dropped by the TCP stack without a word hold their slots for good; restarting (every reading is on flash)');
    expect(k.harm()).toEqual([]);
    expect(k.net.slotsInUse()).toBe(12);
    expect([...k.files.keys()].some((p) => p.startsWith('/q/seg-'))).toBe(true);
  });
});

describe('the device bundle with its cold code missing, corrupt or from another build', () => {
  /** The stored bundle with one byte of a module's source flipped. */
  const corrupt = (name: string): Uint8Array => {
    const b = stored();
    const head = bundle.slice(0, bundle.indexOf('\n'));
    const at = Number(new RegExp(` ${name}:(\\d+):`).exec(head)![1]);
    b[at + 50] = b[at + 50]! ^ 0x01;
    return b;
  };
  /** The stored program of another build: a different id in the header. */
  const otherBuild = (): Uint8Array => new TextEncoder().encode(bundle.replace(/^\/\*PDA-COLD [0-9a-f]{8}/, '/*PDA-COLD 0badc0de'));

  // The program's messages are read from the stored program as well: at boot,
  // one line says when they cannot be.
  const noMessages = (why: string): RegExp => new RegExp('^messages: ' + why + '; flash the board again with \\./flash\\.sh; log lines show #<number> in their place$');
  it.each<[string, () => Uint8Array | undefined, RegExp, RegExp | undefined]>([
    ['run from a file, nothing stored', () => undefined, /^status\(\): cold code state: no program on flash to read it from \(program run from a file\?\); flash the board again with \.\/flash\.sh$/, noMessages('no program on flash to read it from \\(program run from a file\\?\\)')],
    ['a module corrupt on flash', () => corrupt('state'), /^status\(\): cold code state: corrupt on flash \(CRC\); flash the board again with \.\/flash\.sh$/, undefined],
    ['another build on flash', otherBuild, /^status\(\): cold code state: the program on flash is build 0badc0de, this one is [0-9a-f]{8}; flash the board again with \.\/flash\.sh$/, noMessages('the program on flash is build 0badc0de, this one is [0-9a-f]{8}')],
  ])('%s: a command says so in one line, and the agent samples and delivers as before', async (_, program, said, atBoot) => {
    // The config was checked on an earlier boot, with the program stored.
    const k = createKalumaSim({ files: await checkedFiles(), program: program() });
    k.run(bundle);
    expect(() => k.run('status()')).not.toThrow();
    expect(k.errors).toHaveLength(atBoot ? 2 : 1);
    if (atBoot) expect(k.errors[0]).toMatch(atBoot);
    expect(k.errors[k.errors.length - 1]).toMatch(said);
    await k.advance(30000);
    expect(k.requests.length).toBeGreaterThanOrEqual(3);
    expect(k.callbackErrors).toEqual([]);
    expect(k.harm()).toEqual([]);
  });

  it('a corrupt module stops only the commands in it: help() comes from another module', () => {
    const k = createKalumaSim({ program: corrupt('config') });
    k.run(bundle);
    k.run('help()');
    expect(k.out.some((l) => l.startsWith('status()'))).toBe(true);
    k.run("set('wifi.ssid', 'x')");
    expect(k.errors).toEqual([expect.stringMatching(/^set\(\): cold code config: corrupt on flash/)]);
  });

  it("help() and help('keys') come from two modules: the small command list does not carry the schema", () => {
    const k = createKalumaSim({ program: corrupt('keys') });
    k.run(bundle);
    k.run('help()');
    expect(k.out.some((l) => l.startsWith('status()'))).toBe(true);
    expect(k.errors).toEqual([]);
    k.run("help('keys')");
    expect(k.errors).toEqual([expect.stringMatching(/^help\(\): cold code keys: corrupt on flash/)]);
    const ok = createKalumaSim({ program: stored() });
    ok.run(bundle);
    ok.run("help('keys')");
    expect(ok.out.some((l) => l.startsWith('wifi.ssid'))).toBe(true);
    expect(ok.errors).toEqual([]);
  });

  it('a config nobody has checked waits for the checker: console only, and one line says why', async () => {
    const k = createKalumaSim({ files: configured() });
    k.run(bundle);
    await k.advance(30000);
    expect(k.errors).toContain(
      'config: config.json: not checked yet, and the checker is unavailable (cold code check: no program on flash to read it from (program run from a file?); flash the board again with ./flash.sh)',
    );
    // No restart: the next boot would find the same.
    expect(k.resets).toBe(0);
    k.run('status()');
    expect(k.out.some((l) => l.includes('saved configuration invalid'))).toBe(true);
    expect(k.requests).toEqual([]);
    expect(k.callbackErrors).toEqual([]);
  });
});

// Kaluma never disables the RP2040's watchdog on a soft reset: after an upload
// and `.load` without maintenance(), the old program's watchdog still runs.
describe('the device bundle started by .load under a watchdog the previous program armed', () => {
  it('keeps it fed from its first line in console-only mode: no reset in 60 s', async () => {
    const k = createKalumaSim({ program: stored(), armedWatchdogMs: 7000 });
    k.run(bundle);
    k.run('help()');
    await k.advance(60000);
    expect(k.resets).toBe(0);
    expect(k.callbackErrors).toEqual([]);
  });

  it('keeps it fed through start-up until the agent arms its own, and delivers', async () => {
    const k = createKalumaSim({ files: await checkedFiles(), program: stored(), armedWatchdogMs: 7000 });
    // No access point for the first 30 s: the agent arms its own watchdog
    // only once linked (or after 60 s), so until then only keepAlive holds.
    k.wifi.ap = false;
    k.run(bundle);
    await k.advance(30000);
    expect(k.resets).toBe(0);
    k.wifi.ap = true;
    await k.advance(60000);
    expect(k.resets).toBe(0);
    expect(k.out).toContain('watchdog: armed');
    expect(k.requests.length).toBeGreaterThan(3);
  });

  it('(the model) resets a board whose program does not feed it', async () => {
    const k = createKalumaSim({ program: stored(), armedWatchdogMs: 7000 });
    k.run('setTimeout(function () {}, 60000);');
    await k.advance(10000);
    expect(k.resets).toBe(1);
  });
});

describe('the device bundle with little heap to spare', () => {
  /** Bytes of a cold module, from the section's header line in the bundle. */
  const coldBytes = (name: string): number => {
    const head = bundle.slice(bundle.indexOf('/*PDA-COLD '), bundle.indexOf('\n'));
    const f = head.split(' ').find((x) => x.startsWith(name + ':'))!.split(':');
    return Number(f[2]);
  };
  const floored = (): Map<string, Uint8Array> =>
    configured((c) => {
      c.agent.watchdog = false;
      c.agent.heapFloorBytes = 16384;
    });

  it('refuses provision() before it makes anything at the service when set() could not follow it', async () => {
    const files = await checkedFiles(floored());
    const service = httpPeer(() => 'HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nValue updated');
    // Room for provision()'s module beside the agent's 16 KB floor, not for set()'s.
    const free = Math.ceil(3.5 * coldBytes('provision')) + 16384 + 512;
    expect(free).toBeLessThan(Math.ceil(3.5 * coldBytes('config')) + 16384);
    const k = createKalumaSim({ files, program: stored(), heapUsed: 184312 - free, peer: service });
    k.run(bundle);
    await k.advance(5000);
    k.run("provision('me@example.com', 'account-pass', 'greenhouse', 'JSON')");
    await k.advance(5000);
    expect(k.errors).toEqual([expect.stringMatching(/^provision\(\): set\(\) could not follow: cold code config: not enough free heap now \(\d+ B free, about \d+ B needed\)/)]);
    expect(service.requests.filter((r) => /generateapikey|createuserdevice/.test(r))).toEqual([]);
    expect(k.callbackErrors).toEqual([]);
  });

  it('provisions a device beside a running agent: provision() hands its settings to set(), whose module loads once its own is let go', async () => {
    const files = await checkedFiles(floored());
    const service = httpPeer((req) => {
      const body = req.includes('/generateapikey/') ? '{"APIKey":"k3y0123456789abcdef0123456789abcd"}' : req.includes('/createuserdevice/') ? '{"DeviceID":4,"DevicePIN":4444}' : 'Value updated';
      return 'HTTP/1.1 200 OK\r\nContent-Length: ' + body.length + '\r\n\r\n' + body;
    });
    // Room for each module in turn beside the agent's 16 KB floor, not for both at once.
    const free = Math.ceil(3.5 * Math.max(coldBytes('config'), coldBytes('provision'))) + 16384 + 512;
    expect(free).toBeLessThan(Math.ceil(3.5 * (coldBytes('config') + coldBytes('provision'))) + 16384);
    const k = createKalumaSim({ files, program: stored(), heapUsed: 184312 - free, peer: service });
    k.run(bundle);
    await k.advance(5000);
    k.run("provision('me@example.com', 'account-pass', 'greenhouse', 'JSON')");
    await k.advance(5000);
    expect(k.errors).toEqual([]);
    expect(k.out.filter((l) => / set; /.test(l))).toEqual(['service.apiKey set; save() to apply', 'device.greenhouse set; save() to apply']);
    expect(k.out.join('\n')).not.toContain('k3y0123456789abcdef0123456789abcd');
    expect(k.out.join('\n')).not.toContain('account-pass');
    expect(k.callbackErrors).toEqual([]);
  });

  it('refuses a command whose cold module would not fit, in one line, and changes nothing', async () => {
    const files = await checkedFiles();
    // 140 KB used of 184 KB: 44 KB free (this config's agent keeps no heap floor).
    const k = createKalumaSim({ files, program: stored(), heapUsed: 140000 });
    k.run(bundle);
    k.run("set('wifi.ssid', 'other-net')");
    expect(k.errors).toEqual([
      expect.stringMatching(/^set\(\): cold code config: not enough free heap now \(\d+ B free, about \d+ B needed\); try again in a minute, or after maintenance\(\), which boots without the agent$/),
    ]);
    k.run('help()');
    expect(k.out.some((l) => l.startsWith('status()'))).toBe(true);
    await k.advance(30000);
    expect(k.requests.length).toBeGreaterThan(3);
    expect(k.callbackErrors).toEqual([]);
  });
});
