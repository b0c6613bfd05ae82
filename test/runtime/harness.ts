// A board that can be booted again and again on the same flash: each boot
// gets fresh fake time and a fresh platform over the same file store and
// settings, like a power cycle. Real HTTP to a local service is settled
// under the fake clock by waiting for the request in flight.
import { healthReport } from '../../src/agent/health';
import { loadOutputsCode } from '../fakes/outputs-code';
import { REMOTE_CODE } from '../fakes/remote-code';
import type { LoadCold } from '../../src/agent/outputs';
import { CODEC } from '../../src/config/codec';
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installCommands } from '../../src/console/commands';
import { createConfigStore } from '../../src/config/store';
import type { CodecSource } from '../../src/config/store';
import type { AgentConfig } from '../../src/config/types';
import { boot } from '../../src/runtime';
import type { Runtime, RuntimeHooks } from '../../src/runtime';
import type { KvStore } from '../../src/ports/ports';
import { startService } from '../../host/service/server';
import type { RunningService, WriteEvent } from '../../host/service/server';
import { createMemoryFileStore } from '../fakes/files';
import { provisionConfig } from '../fakes/provision';
import type { MemoryFileStore } from '../fakes/files';
import { createTestPlatform, memoryKv } from '../fakes/platform';
import type { TestPlatform } from '../fakes/platform';
import { createFakeTime, flushPromises } from '../fakes/time';
import type { FakeTime } from '../fakes/time';

export interface Booted {
  rt: Runtime;
  p: TestPlatform;
  time: FakeTime;
  cmd: Record<string, (...a: unknown[]) => unknown>;
  /** Advances the fake clock, letting real requests finish on the way. */
  run(ms: number): Promise<void>;
  /** Every line logged since boot, info and error. */
  out(): string[];
  /** The outputs' cold modules loaded since boot, by name. */
  loads: Record<string, number>;
}

export class Board {
  readonly files: MemoryFileStore = createMemoryFileStore();
  readonly kv: KvStore = memoryKv();

  save(cfg: AgentConfig): void {
    const e = createConfigStore({ codec: () => CODEC, checker: 'test', files: this.files }).save(cfg);
    if (e) throw new Error(e);
  }

  /**
   * `codec`: the config checker as the device entry hands it out (default: always there);
   * `refuse`: why a cold module would not load now (as the loader's room check says it), or undefined.
   */
  boot(o: { codec?: CodecSource; onDelivered?: RuntimeHooks['onDelivered']; refuse?: (name: string) => string | undefined } = {}): Booted {
    const time = createFakeTime();
    const p = createTestPlatform({ time, files: this.files, kv: this.kv });
    const all: string[] = [];
    const inner = p.log;
    p.log = { info: (l) => (all.push(l), inner.info(l)), error: (l) => (all.push(l), inner.error(l)) };
    const loads: Record<string, number> = {};
    // The health report as the device's cold module makes it (its loads are not counted), the outputs' modules counted.
    const outputs = loadOutputsCode(loads);
    const load: LoadCold = <T>(name: string) => {
      const no = o.refuse ? o.refuse(name) : undefined;
      if (no) return { ok: false as const, error: no };
      if (name === 'health') return { ok: true as const, value: healthReport as T };
      if (!(name in REMOTE_CODE)) return outputs<T>(name);
      // The configuration device's modules, counted as the outputs' are.
      loads[name] = (loads[name] || 0) + 1;
      return { ok: true as const, value: REMOTE_CODE[name] as T };
    };
    const rt = boot(p, { codec: o.codec || (() => CODEC), checker: 'test', onDelivered: o.onDelivered, load });
    installCommands(rt);
    // Called as the console host calls them, so the platform knows a command runs.
    const cmd = p.commands;
    const settle = async (): Promise<void> => {
      await flushPromises();
      for (let i = 0; i < 2000; i++) {
        const a = rt.agent();
        if (!a || a.uplink.stats().inFlightSinceMs === undefined) break;
        await new Promise((r) => setTimeout(r, 1));
      }
      await flushPromises();
    };
    return { rt, p, time, cmd, run: (ms) => time.advance(ms, settle), out: () => all, loads };
  }
}

export async function localService(): Promise<{ svc: RunningService; writes: WriteEvent[]; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'rt-'));
  const svc = await startService({ dataDir: dir, log: () => undefined });
  const writes: WriteEvent[] = [];
  svc.events.on('write', (w: WriteEvent) => writes.push(w));
  return {
    svc,
    writes,
    close: async () => {
      await svc.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits in real time for async console work (provision, test) to print a line. */
export async function until(pred: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (pred()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('timed out waiting for ' + what);
}

/** testConfig's three devices created at the service, with the key and ids filled in. */
export const provisioned = (url: string, cfg: AgentConfig): Promise<AgentConfig> => provisionConfig(url, cfg, 'rt@example.com', 'pw-rt-0001');

/** A port nobody listens on: every request fails to connect, so the uplink retries. */
export const DEAD_URL = 'http://127.0.0.1:9';

export const text = (bytes: Uint8Array | undefined): string => new TextDecoder().decode(bytes);

/** One local service for a whole test file, started before and closed after it. */
export function sharedService(): { readonly svc: RunningService; readonly writes: WriteEvent[] } {
  let s: Awaited<ReturnType<typeof localService>> | undefined;
  beforeAll(async () => {
    s = await localService();
  });
  afterAll(async () => {
    if (s) await s.close();
  });
  return {
    get svc() {
      return s!.svc;
    },
    get writes() {
      return s!.writes;
    },
  };
}
