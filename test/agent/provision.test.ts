// provisionDevice() checks the account's credentials on every call, a key
// already set included, and creates a device only when they give that key:
// a wrong password, or another account, leaves nothing at the service. A
// failure says whether a device may exist all the same.
import { describe, expect, it } from 'vitest';
import { provisionDevice } from '../../src/agent/provision';
import type { Outcome } from '../../src/service/client';
import type { ServiceOps } from '../../src/service/reads';

const KEY = '0123456789abcdef0123456789abcdef';
const OTHER = 'fedcba9876543210fedcba9876543210';

/** A service with one account per e-mail; the calls it got, by operation. */
function service(accounts: Record<string, { password: string; key: string }>, created: Outcome<{ deviceId?: number; devicePin?: number }> = { kind: 'ok', status: 200, value: { deviceId: 7, devicePin: 4821 }, note: 'HTTP 200 OK', bytesSent: 90 }) {
  const calls: string[] = [];
  const ops = {
    generateApiKey(email: string, password: string): Promise<Outcome<{ apiKey: string }>> {
      calls.push('generateapikey');
      const a = accounts[email];
      return Promise.resolve(a && a.password === password
        ? { kind: 'ok', status: 200, value: { apiKey: a.key }, note: 'HTTP 200 OK', bytesSent: 80 }
        : { kind: 'reject', reason: 'HTTP 401 Unauthorized: text 19 bytes: invalid credentials', status: 401, bytesSent: 80 });
    },
    createDevice(apiKey: string): Promise<Outcome<{ deviceId?: number; devicePin?: number }>> {
      calls.push('createuserdevice ' + apiKey);
      return Promise.resolve(created);
    },
  } as unknown as ServiceOps;
  return { ops, calls };
}

const ACCOUNTS = { 'me@example.com': { password: 'right-password', key: KEY }, 'other@example.com': { password: 'other-password', key: OTHER } };
const ask = (client: ServiceOps, email: string, password: string, apiKey?: string) => provisionDevice({ client, email, password, deviceName: 'gh', format: 'JSON', apiKey });

describe('provisionDevice()', () => {
  it('with a key already set, a wrong password creates no device and says so', async () => {
    const s = service(ACCOUNTS);
    const r = await ask(s.ops, 'me@example.com', 'wrong-password', KEY);
    expect(r).toEqual({ ok: false, error: 'generate API key: HTTP 401 Unauthorized: text 19 bytes: invalid credentials; no device created' });
    expect(s.calls).toEqual(['generateapikey']);
  });

  it('with a key already set, the right credentials create the device under that key', async () => {
    const s = service(ACCOUNTS);
    expect(await ask(s.ops, 'me@example.com', 'right-password', KEY)).toMatchObject({ ok: true, apiKey: KEY, deviceId: 7, devicePin: 4821 });
    expect(s.calls).toEqual(['generateapikey', 'createuserdevice ' + KEY]);
  });

  it("with a key already set, another account's credentials create nothing, and name both keys masked", async () => {
    const s = service(ACCOUNTS);
    const r = await ask(s.ops, 'other@example.com', 'other-password', KEY);
    expect(r).toEqual({ ok: false, error: "service.apiKey (0123…(32)) is not the key of other@example.com (fedc…(32)); no device created. For that account, unset('service.apiKey') first" });
    expect(s.calls).toEqual(['generateapikey']);
  });

  it('without a key, generates it and creates the device under it', async () => {
    const s = service(ACCOUNTS);
    expect(await ask(s.ops, 'other@example.com', 'other-password')).toMatchObject({ ok: true, apiKey: OTHER, deviceId: 7 });
    expect(s.calls).toEqual(['generateapikey', 'createuserdevice ' + OTHER]);
  });

  it('a refused device creation says none was created', async () => {
    const s = service(ACCOUNTS, { kind: 'reject', reason: 'HTTP 400 Bad Request: text 5 bytes: nope!', status: 400, bytesSent: 90 });
    expect(await ask(s.ops, 'me@example.com', 'right-password', KEY)).toEqual({ ok: false, error: 'create device: HTTP 400 Bad Request: text 5 bytes: nope!; no device created' });
  });

  it('a creation that went out and got no answer says the device may exist', async () => {
    const s = service(ACCOUNTS, { kind: 'retry', reason: 'timeout: no reply within 15000 ms', bytesSent: 90 });
    expect(await ask(s.ops, 'me@example.com', 'right-password', KEY)).toEqual({
      ok: false,
      error: 'create device: timeout: no reply within 15000 ms; the request went out with no answer: the service may hold the device anyway',
    });
  });
});
