// The real Kaluma Wi-Fi port (src/ports/kaluma/wifi.ts) over a fake of
// Kaluma's wifi module that does what wifi.js 1.2.1 does in connect(): every
// empty ssid, password or security is read from storage.getItem, which
// overruns the C heap on the board. The fake driver then picks the
// authentication as module_pico_cyw43.c does.
import { beforeEach, describe, expect, it } from 'vitest';
import type { WifiLink } from '../../src/ports/ports';
import { stubKalumaRequire } from './kaluma-env';

interface Joined {
  ssid: string;
  /** What the driver hands to the radio: a string key, or none. */
  key: string | null;
  auth: 'OPEN' | 'WPA2_MIXED_PSK' | 'WPA2_AES_PSK';
}

const radio = { storageReads: [] as string[], joined: [] as Joined[], up: false };

const getItem = (k: string): null => {
  radio.storageReads.push(k);
  return null;
};
class WiFi {
  connect(info: Record<string, unknown>, cb: (err: unknown) => void): void {
    // wifi.js 1.2.1 connect(), the storage fallbacks.
    if (!info.ssid) info.ssid = getItem('WIFI_SSID');
    if (!info.ssid) return cb(new Error('WIFI SSID is required'));
    if (!info.password) info.password = getItem('WIFI_PASSWORD');
    if (!info.security) info.security = getItem('WIFI_SECURITY');
    // module_pico_cyw43.c pico_cyw43_wifi_connect: only a string password
    // is a key; 8 or more characters change the default to WPA2/WPA mixed.
    const key = typeof info.password === 'string' ? info.password : null;
    let auth: Joined['auth'] = key !== null && key.length >= 8 ? 'WPA2_MIXED_PSK' : 'OPEN';
    if (info.security === 'WPA2_WPA_PSK') auth = 'WPA2_MIXED_PSK';
    else if (info.security === 'WPA2_PSK') auth = 'WPA2_AES_PSK';
    else if (info.security === 'OPEN') auth = 'OPEN';
    radio.joined.push({ ssid: info.ssid as string, key, auth });
    radio.up = true;
    cb(0);
  }
  getConnection(cb: (err: unknown, info?: { ssid: string }) => void): void {
    cb(0, radio.up ? { ssid: 'x' } : undefined);
  }
}
// The port requires 'wifi' through Kaluma's global require(), stubbed here.
stubKalumaRequire({ wifi: { WiFi } });

const PORT = '../../src/ports/kaluma/wifi';
const { kalumaWifi: wifi } = (await import(PORT)) as { kalumaWifi: WifiLink };

beforeEach(() => {
  radio.storageReads.length = 0;
  radio.joined.length = 0;
  radio.up = false;
});

describe('kaluma Wi-Fi port: connect never lets Kaluma read storage', () => {
  it('a WPA network: the password as the key, security WPA2/WPA mixed, no storage read', async () => {
    expect(await wifi.connect({ ssid: 'field-net', password: 'correct horse' })).toBe(true);
    expect(radio.joined).toEqual([{ ssid: 'field-net', key: 'correct horse', auth: 'WPA2_MIXED_PSK' }]);
    expect(radio.storageReads).toEqual([]);
  });

  it('an open network: no key at all, security OPEN, no storage read', async () => {
    expect(await wifi.connect({ ssid: 'cafe', password: '' })).toBe(true);
    expect(radio.joined).toEqual([{ ssid: 'cafe', key: null, auth: 'OPEN' }]);
    expect(radio.storageReads).toEqual([]);
  });

  it('no SSID: nothing reaches Kaluma (it would read WIFI_SSID from storage)', async () => {
    expect(await wifi.connect({ ssid: '', password: 'correct horse' })).toBe(false);
    expect(radio.joined).toEqual([]);
    expect(radio.storageReads).toEqual([]);
  });
});
