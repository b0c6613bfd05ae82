// The local Device Data Service on 127.0.0.1 (port 0) with the test
// configuration's three devices and a health device provisioned on it, and a record of every
// write it carried out, per configured device name, in arrival order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentConfig } from '../../src/config/types';
import { startService } from '../../host/service/server';
import type { FaultOptions, RunningService, WriteEvent } from '../../host/service/server';
import { testConfig } from '../fakes/config';
import { provisionConfig, provisionControl, provisionHealth } from '../fakes/provision';
import { unstamp } from './harness';

export interface TestService {
  svc: RunningService;
  config: AgentConfig;
  /** Bodies the service stored, ts stamp removed, per configured device name ('health' for the health device, 'control' for the output's source). */
  received: Record<string, string[]>;
  /** The Value device the config's output (relay, GP16) follows; it holds '1' at the start. */
  control: { id: number; pin: number };
  /** The running service's fault options: changes take effect at the next request. */
  faults: FaultOptions;
  close(): Promise<void>;
}

/** `output`: the config carries an output (relay on GP16) that follows the control device. */
export async function startTestService(faults?: FaultOptions, url?: (svcUrl: string) => string, opts: { output?: boolean } = {}): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), 'faults-'));
  // Provisioning runs without faults; the service is then restarted over the
  // same journal with them.
  const plain = await startService({ dataDir: dir, log: () => undefined });
  const config = await provisionHealth(plain.url, await provisionConfig(plain.url, testConfig(), 'faults@example.com', 'pw-faults-1'), 60000, 'faults@example.com', 'pw-faults-1');
  // A relay following a Value device, where the scenario asks for an output.
  const control = await provisionControl(plain.url, config, 'control', 'Value', '1', 'faults@example.com', 'pw-faults-1');
  if (opts.output) config.outputs = [{ name: 'relay', kind: 'digital', pin: 16, sourceId: control.id, sourcePin: control.pin, field: '', pollMs: 60000, safe: 0, failsafeMs: 600000, invert: false }];
  await plain.close();
  const live: FaultOptions = faults ?? {};
  const svc = await startService({ dataDir: dir, log: () => undefined, faults: live });
  config.service.url = url ? url(svc.url) : svc.url;
  const nameOf = new Map(config.devices.map((d) => [d.deviceId, d.name]));
  nameOf.set(config.health.id, 'health');
  nameOf.set(control.id, 'control');
  const received: Record<string, string[]> = {};
  svc.events.on('write', (w: WriteEvent) => {
    const name = nameOf.get(w.deviceId) ?? '?' + w.deviceId;
    (received[name] ??= []).push(unstamp(w.content));
  });
  return {
    svc, config, received, control, faults: live,
    close: async () => {
      await svc.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
