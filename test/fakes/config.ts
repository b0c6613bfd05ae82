// A complete, valid configuration for tests: three sensors and one device of
// each format, every limit spelled out.
import type { AgentConfig } from '../../src/config/types';

export function testConfig(url = 'http://127.0.0.1:8080'): AgentConfig {
  return {
    board: 'pico-w',
    wifi: { ssid: 'field-net', password: 'secret-pass' },
    service: { url, apiKey: 'k3y0123456789abcdef0123456789abcd' },
    health: { id: 0, pin: 0, intervalMs: 900000 },
    remote: { id: 0, pin: 0, pollMs: 900000 },
    sensors: [
      { name: 'temp', kind: 'temperature', pin: 30, intervalMs: 10000, unit: 'C', filters: [], oversample: 1 },
      { name: 'light', kind: 'analog', pin: 26, intervalMs: 10000, unit: 'V', filters: [] },
      { name: 'door', kind: 'digital', pin: 15, intervalMs: 10000, unit: '', filters: [], pull: 'up' },
    ],
    devices: [
      { name: 'tv', deviceId: 1, devicePin: 1111, format: 'Value', sensors: ['temp'], decimals: 2 },
      { name: 'tj', deviceId: 2, devicePin: 2222, format: 'JSON', sensors: ['temp', 'light', 'door'], decimals: 2 },
      { name: 'tx', deviceId: 3, devicePin: 3333, format: 'XML', sensors: ['light', 'door'], decimals: 2 },
    ],
    outputs: [],
    agent: {
      outboxBytes: 196608, backoffBaseMs: 2000, backoffCapMs: 300000, watchdog: false, requestTimeoutMs: 15000,
      maxResponseBytes: 8192, lkgRevertMs: 0, heapFloorBytes: 0, safeModeBoots: 5, radioOffBetweenUploads: false,
    },
  };
}
