// Creates a config's devices at a service through the agent's own
// provisioning path (key generation, then device creation) and writes the
// key, DeviceIDs and DevicePINs into the config.
import { provisionDevice } from '../../src/agent/provision';
import type { AgentConfig } from '../../src/config/types';
import { createHttpClient } from '../../src/net/http';
import { createServiceOps } from '../../src/service/reads';
import { createNodeSockets } from '../../host/ports/sockets';
import { createNodeTime } from '../../host/ports/time';

export async function provisionConfig(url: string, cfg: AgentConfig, email = 'test@example.com', password = 'pw-test-0001'): Promise<AgentConfig> {
  const made = createServiceOps({ http: createHttpClient({ sockets: createNodeSockets(), timers: createNodeTime().timers }), baseUrl: url });
  if (!made.ok) throw new Error(made.error);
  let apiKey: string | undefined;
  for (const d of cfg.devices) {
    const r = await provisionDevice({ client: made.client, email, password, deviceName: d.name, format: d.format, apiKey });
    if (!r.ok) throw new Error(r.error);
    apiKey = r.apiKey;
    d.deviceId = r.deviceId;
    d.devicePin = r.devicePin;
  }
  cfg.service = { url, apiKey: apiKey ?? '' };
  return cfg;
}

/** A JSON device for the agent's health reports, made under the config's key, set in `cfg.health`. */
export async function provisionHealth(url: string, cfg: AgentConfig, intervalMs = 60000, email = 'rt@example.com', password = 'pw-rt-0001'): Promise<AgentConfig> {
  const made = createServiceOps({ http: createHttpClient({ sockets: createNodeSockets(), timers: createNodeTime().timers }), baseUrl: url });
  if (!made.ok) throw new Error(made.error);
  const r = await provisionDevice({ client: made.client, email, password, deviceName: 'health', format: 'JSON', apiKey: cfg.service.apiKey });
  if (!r.ok) throw new Error(r.error);
  cfg.health = { id: r.deviceId, pin: r.devicePin, intervalMs };
  return cfg;
}

/**
 * A control device for an output (a Value device, or JSON), made under the
 * config's key, with `initial` written to it; its DeviceID and DevicePIN.
 */
export async function provisionControl(url: string, cfg: AgentConfig, name: string, format: 'Value' | 'JSON', initial: string, email = 'rt@example.com', password = 'pw-rt-0001'): Promise<{ id: number; pin: number }> {
  const made = createServiceOps({ http: createHttpClient({ sockets: createNodeSockets(), timers: createNodeTime().timers }), baseUrl: url });
  if (!made.ok) throw new Error(made.error);
  const r = await provisionDevice({ client: made.client, email, password, deviceName: name, format, apiKey: cfg.service.apiKey });
  if (!r.ok) throw new Error(r.error);
  const dev = { apiKey: cfg.service.apiKey, deviceId: r.deviceId, devicePin: r.devicePin };
  const w = format === 'Value' ? await made.client.writeValue(dev, initial) : await made.client.writeJson(dev, initial);
  if (w.kind !== 'ok') throw new Error('control device ' + name + ': ' + w.reason);
  return { id: r.deviceId, pin: r.devicePin };
}

/** Writes a control device's stored value through the service's API, as a person would. */
export async function setControl(url: string, apiKey: string, dev: { id: number; pin: number }, value: string, format: 'Value' | 'JSON' = 'Value'): Promise<void> {
  const made = createServiceOps({ http: createHttpClient({ sockets: createNodeSockets(), timers: createNodeTime().timers }), baseUrl: url });
  if (!made.ok) throw new Error(made.error);
  const ref = { apiKey, deviceId: dev.id, devicePin: dev.pin };
  const w = format === 'Value' ? await made.client.writeValue(ref, value) : await made.client.writeJson(ref, value);
  if (w.kind !== 'ok') throw new Error('control write: ' + w.reason);
}
