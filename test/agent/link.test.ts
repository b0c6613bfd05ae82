// The recovery ladder's rule for connections the socket port abandoned: the
// radio is never power-cycled while one is left (Kaluma's driver would close
// it and free its PCB a second time); the ladder reboots instead.
import { describe, expect, it } from 'vitest';
import { createSimWifi } from '../../host/ports/wifi';
import { createLink, LADDER } from '../../src/agent/link';

function ladder(abandoned: number) {
  const wifi = createSimWifi({ ssid: 'field-net', up: false });
  wifi.setAp(false);
  const errors: string[] = [];
  let reboots = 0;
  const link = createLink({
    wifi,
    creds: () => ({ ssid: 'field-net', password: 'secret-pass' }),
    system: { boardName: () => 'pico-w', boardUid: () => '', memory: () => undefined, reboot: () => void reboots++, seedRandom: () => undefined },
    log: { info: () => undefined, error: (l) => void errors.push(l) },
    abandoned: () => abandoned,
  });
  return { wifi, link, errors, reboots: () => reboots };
}

describe('link ladder and abandoned connections', () => {
  it('power-cycles the radio after failed joins when no connection is abandoned', async () => {
    const l = ladder(0);
    for (let i = 0; i <= LADDER.resetAfterFailedJoins; i++) await l.link.ensureUp();
    expect([l.wifi.counts.resets, l.reboots()]).toEqual([1, 0]);
  });

  it('reboots instead of resetting the radio while a connection is abandoned', async () => {
    const l = ladder(2);
    for (let i = 0; i <= LADDER.resetAfterFailedJoins; i++) await l.link.ensureUp();
    expect([l.wifi.counts.resets, l.reboots()]).toEqual([0, 1]);
    expect(l.link.stats().lastStep).toBe('reboot');
    expect(l.errors).toEqual(['link: 3 failed joins and 2 abandoned connections (a radio reset would free them twice); rebooting']);
  });
});
