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
