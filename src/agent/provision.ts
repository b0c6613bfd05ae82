// Provisioning through the service's own account operations: generate an
// API key from the account credentials, then create a device under it. The
// account password is used for the one request and never stored or printed.
// The credentials are checked every time, a key already set included: a
// wrong password or another account's e-mail creates nothing (a device made
// anyway would stay at the service, and the console cannot remove one). The
// service answers good credentials with the account's key, the same one on
// every call (host/service/NOTES.md), so a key already set must be that one.
import type { DataFormat } from '../model';
import { maskSecret } from '../service/client';
import type { ServiceOps } from '../service/reads';

export type Provisioned =
  | { ok: true; apiKey: string; deviceId: number; devicePin: number; note: string }
  | { ok: false; error: string };

export async function provisionDevice(o: {
  client: ServiceOps;
  email: string;
  password: string;
  deviceName: string;
  format: DataFormat;
  /** The key already set (several devices, one account): the credentials must give this one. */
  apiKey?: string;
  cryptoName?: string;
}): Promise<Provisioned> {
  const k = await o.client.generateApiKey(o.email, o.password);
  if (k.kind !== 'ok') return { ok: false, error: 'generate API key: ' + k.reason + '; no device created' };
  const apiKey = k.value.apiKey;
  if (o.apiKey && o.apiKey !== apiKey) {
    return { ok: false, error: 'service.apiKey (' + maskSecret(o.apiKey) + ') is not the key of ' + o.email + ' (' + maskSecret(apiKey) + '); no device created. For that account, unset(\'service.apiKey\') first' };
  }
  const d = await o.client.createDevice(apiKey, o.deviceName, o.cryptoName || 'None', o.format);
  if (d.kind !== 'ok') {
    // Sent, and no answer came back: the service may have made it all the same.
    const unknown = d.bytesSent > 0 && d.status === undefined;
    return { ok: false, error: 'create device: ' + d.reason + (unknown ? '; the request went out with no answer: the service may hold the device anyway' : '; no device created') };
  }
  const { deviceId, devicePin } = d.value;
  if (deviceId === undefined || devicePin === undefined) {
    // The spec does not promise these in the reply; say so instead of guessing.
    const missing = deviceId === undefined ? (devicePin === undefined ? 'DeviceID and DevicePIN' : 'DeviceID') : 'DevicePIN';
    return { ok: false, error: 'device created, but the reply had no ' + missing + ' (' + d.note + '); set them by hand' };
  }
  return { ok: true, apiKey, deviceId, devicePin, note: d.note };
}
