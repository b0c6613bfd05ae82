// Provisioning through the service's own account operations: generate an
// API key from the account credentials, then create a device under it. The
// account password is used for the one request and never stored or printed.
import type { DataFormat } from '../model';
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
  /** Reuse a key already generated (several devices, one account). */
  apiKey?: string;
  cryptoName?: string;
}): Promise<Provisioned> {
  let apiKey = o.apiKey;
  if (!apiKey) {
    const k = await o.client.generateApiKey(o.email, o.password);
    if (k.kind !== 'ok') return { ok: false, error: 'generate API key: ' + k.reason };
    apiKey = k.value.apiKey;
  }
  const d = await o.client.createDevice(apiKey, o.deviceName, o.cryptoName || 'None', o.format);
  if (d.kind !== 'ok') return { ok: false, error: 'create device: ' + d.reason };
  const { deviceId, devicePin } = d.value;
  if (deviceId === undefined || devicePin === undefined) {
    // The spec does not promise these in the reply; say so instead of guessing.
    const missing = deviceId === undefined ? (devicePin === undefined ? 'DeviceID and DevicePIN' : 'DeviceID') : 'DevicePIN';
    return { ok: false, error: 'device created, but the reply had no ' + missing + ' (' + d.note + '); set them by hand' };
  }
  return { ok: true, apiKey, deviceId, devicePin, note: d.note };
}
