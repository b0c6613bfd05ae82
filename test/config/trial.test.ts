// A change of configuration on trial: proven by a delivery (and kept as the
// last known good one), reverted when it delivers nothing for lkgRevertMs,
// and still on trial after a power cut (its flag on flash).
import { describe, expect, it } from 'vitest';
import { CODEC } from '../../src/config/codec';
import { createConfigStore } from '../../src/config/store';
import { createTrial } from '../../src/config/trial';
import type { AgentConfig } from '../../src/config/types';
import { testConfig } from '../fakes/config';
import { createMemoryFileStore } from '../fakes/files';
import type { MemoryFileStore } from '../fakes/files';
import { createFakeTime } from '../fakes/time';
import { createTestPlatform } from '../fakes/platform';

const MIN = 60000;
const FLAG = 'config.new';

function config(backoffBaseMs: number): AgentConfig {
  const c = testConfig();
  c.agent.lkgRevertMs = MIN;
  c.agent.backoffBaseMs = backoffBaseMs;
  return c;
}

/** A board's flash with `good` saved and kept as the last known good one. */
function flash(good: AgentConfig): MemoryFileStore {
  const files = createMemoryFileStore();
  const store = createConfigStore({ codec: () => CODEC, checker: 'test', files });
  expect(store.save(good)).toBeUndefined();
  expect(store.saveLastKnownGood(good)).toBeUndefined();
  return files;
}

/** One boot on `files`: a trial as the boot makes it, over a fresh clock. */
function boot(files: MemoryFileStore, o: { flagged?: boolean; onTrial?: boolean } = {}) {
  const time = createFakeTime();
  const errors: string[] = [];
  const log = { info: () => undefined, error: (l: string) => void errors.push(l) };
  const store = createConfigStore({ codec: () => CODEC, checker: 'test', files, log });
  const p = createTestPlatform({ time, files });
  p.log = log;
  const trial = createTrial({ p, store, flagged: !!o.flagged, onTrial: !!o.onTrial });
  return { time, errors, store, trial };
}

const lkg = (files: MemoryFileStore): unknown => (JSON.parse(new TextDecoder().decode(files.contents('config.lkg.json'))) as { config: unknown }).config;

describe('a change of configuration on trial', () => {
  it('that delivers is proven: saved as the last known good one at the next tick, its flag gone, never reverted', () => {
    const good = config(2000);
    const files = flash(good);
    const b = boot(files);
    const changed = config(3000);
    b.store.save(changed);
    b.time.advanceSync(10000);
    b.trial.start();
    expect(files.contents(FLAG)).toBeDefined();
    expect(b.trial.check(changed, 15000, undefined)).toBeUndefined();
    expect(lkg(files)).toEqual(good);
    // Delivered at 17 s: proven at the next check.
    expect(b.trial.check(changed, 20000, 17000)).toBeUndefined();
    expect(lkg(files)).toEqual(changed);
    expect(files.contents(FLAG)).toBeUndefined();
    expect(b.trial.check(changed, 10 * MIN, undefined)).toBeUndefined();
    expect(b.errors).toEqual([]);
  });

  it('that delivers nothing for lkgRevertMs is reverted to the last known good one, once, and its flag goes', () => {
    const good = config(2000);
    const files = flash(good);
    const b = boot(files);
    const bad = config(3000);
    b.store.save(bad);
    b.time.advanceSync(10000);
    b.trial.start();
    expect(b.trial.check(bad, 10000 + MIN - 1, undefined)).toBeUndefined();
    expect(b.trial.check(bad, 10000 + MIN, undefined)).toEqual(good);
    expect(b.errors).toEqual(['config: the changed configuration delivered nothing for 1 min; going back to the last known good one']);
    expect(files.contents(FLAG)).toBeUndefined();
    // The saved form is the good one again, for the next boot.
    expect(b.store.load().config).toEqual(good);
    expect(b.trial.check(good, 10000 + 5 * MIN, undefined)).toBeUndefined();
  });

  it('a delivery from before the change proves nothing: the change stays on trial', () => {
    const good = config(2000);
    const files = flash(good);
    const b = boot(files);
    const bad = config(3000);
    b.store.save(bad);
    b.time.advanceSync(10000);
    b.trial.start();
    expect(b.trial.check(bad, 12000, 9000)).toBeUndefined();
    expect(files.contents(FLAG)).toBeDefined();
    expect(b.trial.check(bad, 10000 + MIN, undefined)).toEqual(good);
  });

  it('survives a power cut: the next boot finds the flag and reverts lkgRevertMs after its start', () => {
    const good = config(2000);
    const files = flash(good);
    const first = boot(files);
    const bad = config(3000);
    first.store.save(bad);
    first.time.advanceSync(50000);
    first.trial.start();
    // Power cut: the RAM and its clock are gone, the flag is not.
    const next = boot(files, { flagged: true, onTrial: true });
    expect(next.trial.check(bad, MIN - 1, undefined)).toBeUndefined();
    expect(next.trial.check(bad, MIN, undefined)).toEqual(good);
    expect(files.contents(FLAG)).toBeUndefined();
  });

  it('a flag the boot does not put on trial (a file flash.sh wrote) goes at once, and nothing is reverted', () => {
    const good = config(2000);
    const files = flash(good);
    files.write(FLAG, new Uint8Array([49]));
    const b = boot(files, { flagged: true, onTrial: false });
    expect(files.contents(FLAG)).toBeUndefined();
    expect(b.trial.check(config(3000), 10 * MIN, undefined)).toBeUndefined();
  });

  it('a flag that cannot be written keeps the rule for this boot, and says why', () => {
    const good = config(2000);
    const files = flash(good);
    const b = boot(files);
    const bad = config(3000);
    b.store.save(bad);
    const write = files.write.bind(files);
    files.write = () => {
      throw new Error('flash full');
    };
    b.trial.start();
    files.write = write;
    expect(files.contents(FLAG)).toBeUndefined();
    expect(b.errors).toEqual(['config: Error: flash full']);
    expect(b.trial.check(bad, MIN, undefined)).toEqual(good);
  });
});
