// Provisioning: an API key from the account credentials, then a device under
// it. The password is used for the one request, never stored or printed. The
// credentials are checked even when a key is set (the service answers with
// the account's one key), so a wrong account creates no device the console
// could not remove.
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
