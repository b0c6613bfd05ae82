import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEALTHY_AFTER_MS } from '../../src/runtime';
import { testConfig } from '../fakes/config';
import { Board, localService, provisioned } from './harness';

let service: Awaited<ReturnType<typeof localService>>;
beforeAll(async () => {
  service = await localService();
});
afterAll(async () => {
  await service.close();
});

describe('boot', () => {
  it('with no configuration: console only, naming exactly what to set, sampling nothing', async () => {
    const b = new Board().boot();
    expect(b.rt.mode()).toBe('console-only');
    expect(b.rt.why()).toBe('not configured: set wifi.ssid, service.url, service.apiKey, device.<name>');
    expect(b.out()).toContain("type help() for the commands, e.g. set('wifi.ssid', 'my-net')");
    await b.run(120000);
    expect(b.rt.agent()).toBeUndefined();
    expect(b.rt.queue.stats().nextSeq).toBe(1);
  });

  it('with an invalid saved configuration: console only, every error listed', () => {
    const board = new Board();
    board.files.write('config.json', new TextEncoder().encode('{"sensors":[{"name":"t","kind":"digital","pin":23}],"agent":{"backoffBaseMs":5}}'));
    const b = board.boot();
    expect(b.rt.mode()).toBe('console-only');
    expect(b.p.errors).toContain('config: the saved configuration is invalid; starting with the console only:');
    expect(b.p.errors.filter((l) => l.startsWith('  '))).toEqual([
      '  agent.backoffBaseMs: must be a whole number from 100 to 60000',
      '  sensor.t.pin: pin 23: GP23 belongs to the Wi-Fi radio (WL_ON) and must never be used',
    ]);
  });

  it('with garbage in config.json: console only, and it says the file is not JSON', () => {
    const board = new Board();
    board.files.write('config.json', new TextEncoder().encode('{"wifi": '));
    const b = board.boot();
    expect(b.rt.mode()).toBe('console-only');
    expect(b.p.errors.join('\n')).toMatch(/config\.json/);
  });

  it("takes Wi-Fi from Kaluma's storage keys when the config has none", () => {
    const board = new Board();
    board.kv.set('WIFI_SSID', 'shed-net');
    board.kv.set('WIFI_PASSWORD', 'shed-password');
    const b = board.boot();
    expect(b.rt.config().wifi).toEqual({ ssid: 'shed-net', password: 'shed-password' });
    expect(b.rt.why()).toBe('not configured: set service.url, service.apiKey, device.<name>');
  });

  it('with a full configuration: runs and delivers to the service', async () => {
    const board = new Board();
    const cfg = await provisioned(service.svc.url, testConfig());
    cfg.agent.watchdog = true;
    board.save(cfg);
    const before = service.writes.length;
    const b = board.boot();
    expect(b.rt.mode()).toBe('running');
    await b.run(25000);
    b.rt.stop();
    expect(service.writes.length - before).toBe(9);
    expect(b.out()).toContain('watchdog: armed');
  });

  it('arms the watchdog only once the link is up or a minute has passed', async () => {
    const board = new Board();
    const cfg = testConfig('http://127.0.0.1:9');
    cfg.agent.watchdog = true;
    board.save(cfg);
    const b = board.boot();
    b.p.wifi.setAp(false);
    await b.run(55000);
    expect(b.out()).not.toContain('watchdog: armed');
    await b.run(10000);
    expect(b.out()).toContain('watchdog: armed');
    b.rt.stop();
  });

  it('enters safe mode after rapid reboots, and resume() leaves it', () => {
    const board = new Board();
    board.save(testConfig('http://127.0.0.1:9'));
    const cfg = testConfig();
    const boots = [];
    for (let i = 0; i < cfg.agent.safeModeBoots; i++) {
      const b = board.boot();
      boots.push(b.rt.mode());
      b.rt.stop();
    }
    expect(boots).toEqual(['running', 'running', 'running', 'running', 'running']);
    const b = board.boot();
    expect(b.rt.mode()).toBe('safe');
    expect(b.rt.why()).toMatch(/^5 reboots in a row/);
    expect(b.out()).toContain('type resume() to start the agent, or fix the config first (config(), set(), save())');
    b.cmd.resume!();
    expect(b.rt.mode()).toBe('running');
    b.rt.stop();
    expect(board.boot().rt.mode()).toBe('running');
  });

  it('counts a boot that lived two minutes as healthy', async () => {
    const board = new Board();
    board.save(testConfig('http://127.0.0.1:9'));
    for (let i = 0; i < 4; i++) board.boot().rt.stop();
    const lived = board.boot();
    await lived.run(HEALTHY_AFTER_MS);
    lived.rt.stop();
    for (let i = 0; i < 4; i++) expect(board.boot().rt.mode()).toBe('running');
  });

  it('maintenance(): the next boot runs neither agent nor watchdog, the one after is normal', () => {
    const board = new Board();
    board.save(testConfig('http://127.0.0.1:9'));
    const b = board.boot();
    b.cmd.maintenance!();
    expect(b.p.reboots).toBe(1);
    const m = board.boot();
    expect(m.rt.mode()).toBe('console-only');
    expect(m.rt.why()).toBe('maintenance boot: agent and watchdog off until the next reboot; flash or copy files now');
    expect(m.rt.agent()).toBeUndefined();
    expect(board.boot().rt.mode()).toBe('running');
  });

  it('goes back to the last known good configuration when a change delivers nothing', async () => {
    const board = new Board();
    const good = await provisioned(service.svc.url, testConfig());
    good.agent.lkgRevertMs = 60000;
    board.save(good);
    const b = board.boot();
    await b.run(15000);
    const delivered = service.writes.length;
    expect(board.files.read('config.lkg.json')).toBeDefined();

    const bad = structuredClone(good);
    bad.service.url = 'http://127.0.0.1:9';
    expect(b.rt.apply(bad)).toBeUndefined();
    await b.run(50000);
    expect(b.rt.config().service.url).toBe('http://127.0.0.1:9');
    await b.run(20000);
    expect(b.p.errors).toContain('config: the changed configuration delivered nothing for 1 min; going back to the last known good one');
    expect(b.rt.config().service.url).toBe(service.svc.url);
    await b.run(30000);
    b.rt.stop();
    expect(service.writes.length).toBeGreaterThan(delivered);
  });
});
