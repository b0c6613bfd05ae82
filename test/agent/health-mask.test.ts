// The health report never carries a character of the Wi-Fi password, and
// only the API key's short prefix, whatever error line it quotes.
import { describe, expect, it } from 'vitest';
import { healthReport } from '../../src/agent/health';
import type { Runtime } from '../../src/runtime';
import { testConfig } from '../fakes/config';
import { createTestPlatform } from '../fakes/platform';
import { createFakeTime } from '../fakes/time';

describe('health report secrets', () => {
  it('names the Wi-Fi password without a character of it and masks the API key', () => {
    const cfg = testConfig();
    cfg.wifi.password = 'pw-Zq81-secret';
    cfg.service.apiKey = 'KEY0123456789abcdef';
    const p = createTestPlatform({ time: createFakeTime() });
    const rt = {
      p, config: () => cfg, agent: () => undefined, queue: () => undefined, mode: () => 'console-only',
      state: { bootId: 1, lastAsked: true, lastState: 'restart' },
      consoleError: 'join failed with ' + cfg.wifi.password + ' for key ' + cfg.service.apiKey,
    } as unknown as Runtime;
    const r = JSON.parse(healthReport(rt)) as { error: string };
    expect(r.error).toBe('join failed with (wifi.password) for key KEY0\u2026(19)');
    expect(r.error).not.toContain('pw-Z');
  });
});
