// The defaults the resident program needs without the checker (the schema is
// cold code); a test holds them equal to the schema's.
import { DEFAULT_BOARD } from '../board';
import type { AgentConfig } from './types';

/** Every setting at its default. */
export function defaultConfig(): AgentConfig {
  return {
    board: DEFAULT_BOARD as AgentConfig['board'],
    wifi: { ssid: '', password: '' },
    service: { url: '', apiKey: '' },
    health: { id: 0, pin: 0, intervalMs: 900000 },
    remote: { id: 0, pin: 0, pollMs: 900000 },
    agent: {
      outboxBytes: 196608,
      backoffBaseMs: 2000,
      backoffCapMs: 300000,
      watchdog: true,
      requestTimeoutMs: 15000,
      maxResponseBytes: 8192,
      lkgRevertMs: 1800000,
      heapFloorBytes: 16384,
      safeModeBoots: 5,
      radioOffBetweenUploads: false,
    },
    sensors: [],
    devices: [],
    outputs: [],
  };
}

/** The keys still to set before the agent can deliver anything; [] when ready. */
export function isConfigured(c: AgentConfig): string[] {
  const missing: string[] = [];
  if (c.wifi.ssid === '') missing.push('wifi.ssid');
  if (c.service.url === '') missing.push('service.url');
  if (c.service.apiKey === '') missing.push('service.apiKey');
  if (!c.devices.some((d) => d.sensors.length > 0)) missing.push('device.<name>');
  return missing;
}
