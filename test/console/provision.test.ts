// provision() on a board whose API key is already set, over real HTTP to a
// local service: a wrong password is refused in one line and leaves no
// device at the service (DeviceIDs count up across the service and are
// never reused, so the next device made shows whether one was made between).
import { describe, expect, it } from 'vitest';
import { testConfig } from '../fakes/config';
import { Board, provisioned, sharedService, until } from '../runtime/harness';

const service = sharedService();

describe('provision() with a key already set', () => {
  it('a wrong password creates no device, says so, and changes nothing', async () => {
    const cfg = await provisioned(service.svc.url, testConfig());
    const last = Math.max(...cfg.devices.map((d) => d.deviceId));
    const board = new Board();
    board.save(cfg);
    const b = board.boot();
    b.cmd.provision!('rt@example.com', 'wrong-password', 'extra', 'Value');
    await until(() => b.p.errors.length > 0, 'the refusal');
    expect(b.p.errors).toEqual(['provision: generate API key: HTTP 401 Unauthorized: text 19 bytes: invalid credentials; no device created']);
    expect(b.rt.dirty()).toBe(false);
    expect(b.out().join('\n')).not.toContain('wron');

    // The right password: the next DeviceID, so none was made by the refused call.
    b.cmd.provision!('rt@example.com', 'pw-rt-0001', 'extra', 'Value');
    await until(() => b.out().some((l) => l.startsWith('device.extra set')), 'the device');
    expect(b.rt.pending().devices.find((d) => d.name === 'extra')).toMatchObject({ deviceId: last + 1 });
    expect(b.rt.pending().service.apiKey).toBe(cfg.service.apiKey);
    expect(b.p.errors).toHaveLength(1);
    b.rt.stop();
  });

  it("another account's credentials create no device and say whose key is set", async () => {
    const cfg = await provisioned(service.svc.url, testConfig());
    const board = new Board();
    board.save(cfg);
    const b = board.boot();
    b.cmd.provision!('someone-else@example.com', 'their-password', 'extra', 'Value');
    await until(() => b.p.errors.length > 0, 'the refusal');
    expect(b.p.errors).toHaveLength(1);
    expect(b.p.errors[0]).toMatch(/^provision: service\.apiKey \([0-9a-f]{4}…\(32\)\) is not the key of someone-else@example\.com \([0-9a-f]{4}…\(32\)\); no device created\. For that account, unset\('service\.apiKey'\) first$/);
    expect(b.rt.dirty()).toBe(false);
    b.rt.stop();
  });
});
