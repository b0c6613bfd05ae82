// A document of the configuration device applied on the device's runtime
// built for the PC, when one is given (KALUMA_ENGINE): the unmodified
// bundle with the reference configuration, the bench's stand-in service
// holding a document on device 12 that changes the sensors' period. The
// checker has no room beside the running agent on the Pico W's heap, so the
// board keeps the document, restarts into a boot without the agent that
// checks and saves it, and restarts into it. Without an engine the test is
// skipped, and one line says so.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBoard } from '../../scripts/measure/engine/board';
import { engineCommand } from '../../scripts/measure/engine/lib';
import { referenceConfig } from '../../scripts/measure/bench/timer-ids';
import { toSaved } from '../../src/config/saved';

const engine = process.env['KALUMA_ENGINE'];
const how = engine && existsSync(engine) ? engineCommand(engine) : 'set KALUMA_ENGINE to the device runtime built for the PC';
const usable = typeof how !== 'string';
if (!usable) console.log('engine tests skipped: ' + how);

describe.skipIf(!usable)('the configuration device on the device engine', () => {
  it('a new document: kept, checked in a boot without the agent, saved there once the check is let go, and run; no fatal error', async () => {
    const cfg = referenceConfig();
    cfg.remote = { id: 12, pin: 12, pollMs: 60000 };
    const saved = toSaved(cfg) as Record<string, unknown>;
    const doc: Record<string, unknown> = { ...saved, sensors: (saved.sensors as Record<string, unknown>[]).map((s) => ({ ...s, intervalMs: 2000 })) };
    delete doc.wifi;
    delete doc.service;
    delete doc.remote;
    const r = await runBoard(engine!, {
      name: 'engine-test-remote',
      config: saved,
      remoteDoc: JSON.stringify(doc),
      seconds: 90,
      periodMs: 500,
      // Boot 4 (the agent on the new configuration) has run a few seconds.
      until: (marks) => marks.filter((m) => m.boot === 3).length >= 6,
    });
    // The console's escapes (erase line, colours) left out.
    const out = r.run.stdout.split('\x1b[2K').join('').split('\x1b[0m').join('');
    expect(r.died, r.run.stderr).toBe(false);
    // Boot 1 checks the flashed config; boot 2 runs the agent and keeps the document; boot 3 checks it and saves it.
    expect(r.boots).toBe(4);
    expect(out).toMatch(/remote: document [0-9a-f]+: cold code check: not enough free heap now .*; restarting to check it without the agent/);
    expect(out).toContain('agent: console only: checking a configuration from the service; the agent starts after a restart');
    expect(out).toMatch(/remote: document [0-9a-f]+ applied; on trial until it delivers/);
    expect(r.marks.filter((m) => m.boot === 3).length).toBeGreaterThanOrEqual(6);
  }, 300000);
});
