// The real Kaluma Wi-Fi port (src/ports/kaluma/wifi.ts) over a model of the
// Pico W's 802.11 driver object, global.__ieee80211dev (test/fakes/kaluma/net.ts),
// which the port drives directly: Kaluma's wifi module (an EventEmitter, and
// the storage reads of its connect(), which overrun the C heap on the board)
// is never required. The model picks the authentication as module_pico_cyw43.c
// does and reports success to every callback, as the driver's conversion of
// its error codes does.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WifiLink } from '../../src/ports/ports';
import { createKalumaRadio, type KalumaRadio } from '../fakes/kaluma/net';
import { stubKalumaRequire } from './kaluma-env';

let radio: KalumaRadio;
let storageReads = 0;
let feeds = 0;
let required: string[] = [];

const PORT = '../../src/ports/kaluma/wifi';
let wifi: WifiLink;

beforeEach(async () => {
  vi.resetModules();
  radio = createKalumaRadio({ ssid: 'field-net' });
  storageReads = 0;
  feeds = 0;
  vi.stubGlobal('__ieee80211dev', radio.dev);
  // Kaluma's storage global: any read of it would be a way to the C heap overrun.
  Object.defineProperty(globalThis, 'storage', {
    configurable: true,
    get: () => {
      storageReads++;
      return { getItem: () => null };
    },
  });
  // Kaluma has both modules; the port may only ask for wdt (to keep a watchdog an earlier program armed quiet).
  required = stubKalumaRequire({
    wifi: { WiFi: class {} },
    events: {},
    wdt: { WDT: class { feed(): void { feeds++; } } },
  });
  wifi = ((await import(PORT)) as { kalumaWifi: WifiLink }).kalumaWifi;
});

afterEach(() => {
  vi.unstubAllGlobals();
  delete (globalThis as { storage?: unknown }).storage;
});

describe('kaluma Wi-Fi port on the radio driver', () => {
  it('a WPA network: the password as the key, security WPA2/WPA mixed, no storage read', async () => {
    expect(await wifi.connect({ ssid: 'field-net', password: 'correct horse' })).toBe(true);
    expect(radio.joins).toEqual([{ ssid: 'field-net', key: 'correct horse', auth: 'WPA2_MIXED_PSK' }]);
    expect(storageReads).toBe(0);
  });

  it('an open network: no key at all, security OPEN, no storage read', async () => {
    radio = createKalumaRadio({ ssid: 'cafe' });
    vi.stubGlobal('__ieee80211dev', radio.dev);
    expect(await wifi.connect({ ssid: 'cafe', password: '' })).toBe(true);
    expect(radio.joins).toEqual([{ ssid: 'cafe', key: null, auth: 'OPEN' }]);
    expect(storageReads).toBe(0);
  });

  it('no SSID: nothing reaches the driver', async () => {
    expect(await wifi.connect({ ssid: '', password: 'correct horse' })).toBe(false);
    expect(radio.joins).toEqual([]);
  });

  it('does not trust the callback: a join that failed (wrong SSID, or no access point) is false', async () => {
    expect(await wifi.connect({ ssid: 'other-net', password: 'correct horse' })).toBe(false);
    radio.ap = false;
    expect(await wifi.connect({ ssid: 'field-net', password: 'correct horse' })).toBe(false);
    expect(radio.joins.length).toBe(2);
  });

  it('polls the link: down once the access point is gone, with no event', async () => {
    expect(await wifi.isUp()).toBe(false);
    expect(await wifi.connect({ ssid: 'field-net', password: 'correct horse' })).toBe(true);
    expect(await wifi.isUp()).toBe(true);
    radio.ap = false;
    expect(await wifi.isUp()).toBe(false);
  });

  it('scans: the SSIDs in range, none without the access point, undefined when the scan fails', async () => {
    expect(await wifi.scan()).toEqual(['field-net']);
    radio.ap = false;
    expect(await wifi.scan()).toEqual([]);
    radio.scanFails = true;
    expect(await wifi.scan()).toBeUndefined();
  });

  it('disconnects and resets the radio: the link is down after either', async () => {
    expect(await wifi.connect({ ssid: 'field-net', password: 'correct horse' })).toBe(true);
    await wifi.disconnect();
    expect(await wifi.isUp()).toBe(false);
    expect(await wifi.connect({ ssid: 'field-net', password: 'correct horse' })).toBe(true);
    await wifi.reset();
    expect([await wifi.isUp(), radio.resets]).toEqual([false, 1]);
  });

  it('keeps a watchdog an earlier program left armed quiet before each blocking call (join, scan, reset)', async () => {
    await wifi.connect({ ssid: 'field-net', password: 'correct horse' });
    await wifi.scan();
    await wifi.reset();
    expect(feeds).toBe(3);
  });

  it('without a radio driver (a board without Wi-Fi): never up, nothing throws', async () => {
    vi.stubGlobal('__ieee80211dev', undefined);
    expect(await wifi.connect({ ssid: 'field-net', password: 'correct horse' })).toBe(false);
    expect(await wifi.isUp()).toBe(false);
    expect(await wifi.scan()).toBeUndefined();
    await expect(wifi.disconnect()).resolves.toBeUndefined();
    await expect(wifi.reset()).resolves.toBeUndefined();
  });

  it('never requires Kaluma\'s wifi module (nor events)', async () => {
    await wifi.connect({ ssid: 'field-net', password: 'correct horse' });
    await wifi.isUp();
    await wifi.scan();
    await wifi.disconnect();
    await wifi.reset();
    expect(required.filter((m) => m !== 'wdt')).toEqual([]);
  });
});
