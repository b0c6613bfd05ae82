// Each console table, and the health report, reaches only the part of the
// runtime its context names: here each runs on a view of a booted runtime
// that has just those members, and any other member it reached would throw
// (and would not typecheck).
import { describe, expect, it } from 'vitest';
import { healthReport } from '../../src/agent/health';
import type { HealthRt } from '../../src/agent/health';
import { configCommands, showCommands, stateCommands } from '../../src/console/cmd-config';
import type { StateRt } from '../../src/console/cmd-config';
import { provisionCommands, testCommands } from '../../src/console/cmd-service';
import { context } from '../../src/console/shared';
import type { ConsoleRt, Editing } from '../../src/console/shared';
import type { Runtime } from '../../src/runtime';
import { Board } from '../runtime/harness';
import type { Booted } from '../runtime/harness';
import { fresh, said } from './helpers';

/** `rt` with only `keys`: reading or writing any other member throws, naming it. */
function only<K extends keyof Runtime>(rt: Runtime, keys: K[]): Pick<Runtime, K> {
  const allowed = (k: string | symbol): boolean => (keys as (string | symbol)[]).indexOf(k) >= 0;
  return new Proxy(rt, {
    get(t, k) {
      if (!allowed(k)) throw new Error('reached rt.' + String(k));
      const v = Reflect.get(t, k) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
    set(t, k, v) {
      if (!allowed(k)) throw new Error('wrote rt.' + String(k));
      return Reflect.set(t, k, v);
    },
  });
}

const BASE: (keyof ConsoleRt)[] = ['p', 'consoleError'];
const EDITING: (keyof Editing)[] = ['config', 'pending', 'setPending'];
const STATE: (keyof StateRt)[] = ['p', 'consoleError', 'mode', 'why', 'state', 'config', 'agent', 'queue', 'outputs', 'dirty', 'pending', 'setPending', 'apply', 'resume', 'restart'];
const HEALTH: (keyof HealthRt)[] = ['p', 'consoleError', 'mode', 'state', 'config', 'agent', 'queue', 'outputs'];

/** Lines a command printed, and no error thrown out of it. */
const run = (b: Booted, f: () => unknown): string[] => said(b, f);

describe('the console reaches the runtime through narrow views', () => {
  it("set(), unset() and config(): the configuration and the console's changes only", () => {
    const { b } = fresh();
    const edit = configCommands(context(only(b.rt, [...BASE, ...EDITING])));
    const show = showCommands(context(only(b.rt, [...BASE, 'config', 'pending', 'dirty'])));
    expect(run(b, () => edit.set!('agent.backoffBaseMs', 3000))).toEqual(['agent.backoffBaseMs set; save() to apply']);
    expect(run(b, () => show.config!()).join('\n')).toContain('agent.backoffBaseMs: 2000 -> 3000');
    expect(run(b, () => edit.unset!('agent.backoffBaseMs'))).toEqual(['agent.backoffBaseMs unset; save() to apply']);
    b.rt.stop();
  });

  it('status(), discard(), save(), resume(), maintenance() and reboot(): the state commands view only', () => {
    const { b } = fresh();
    const st = stateCommands(context(only(b.rt, STATE)));
    expect(run(b, () => st.status!()).join('\n')).toMatch(/^agent +\S+, running, boot 1/);
    b.rt.setPending({ ...b.rt.config(), agent: { ...b.rt.config().agent, backoffBaseMs: 3000 } });
    expect(run(b, () => st.discard!())).toEqual(['unsaved changes dropped']);
    expect(b.rt.dirty()).toBe(false);
    b.rt.setPending({ ...b.rt.config(), agent: { ...b.rt.config().agent, backoffBaseMs: 3000 } });
    expect(run(b, () => st.save!())[0]).toMatch(/^saved; agent running/);
    expect(run(b, () => st.resume!())).toEqual(['agent running']);
    run(b, () => st.maintenance!());
    expect(b.p.reboots).toBe(1);
    expect(b.p.files.read('maintenance')).toEqual(new Uint8Array([49]));
    run(b, () => st.reboot!());
    expect(b.p.reboots).toBe(2);
    b.rt.stop();
  });

  it('test() and provision() refuse with one line on what they reach', () => {
    // No configuration: the agent does not run.
    const b = new Board().boot();
    const t = testCommands(context(only(b.rt, [...BASE, 'agent', 'why', 'config'])));
    const pr = provisionCommands(context(only(b.rt, [...BASE, 'pending', 'agent'])));
    expect(run(b, () => t.test!())).toEqual(['test: the agent is not running (not configured: set wifi.ssid, service.url, service.apiKey, device.<name>)']);
    expect(run(b, () => pr.provision!('me@example.com', 'pw', 'bad name', 'JSON'))).toEqual(['provision: deviceName must be 1-16 letters, digits or _, not starting with a digit']);
    b.rt.stop();
  });

  it('the health report reads its view only', () => {
    const { b } = fresh();
    const r = JSON.parse(healthReport(only(b.rt, HEALTH))) as { mode: string; boot: number };
    expect(r).toMatchObject({ mode: 'running', boot: 1 });
    b.rt.stop();
  });
});
