// The boot's decision as a table: what the boot found -> mode, reason, whether to check the file, trial.
import { describe, expect, it } from 'vitest';
import { decideBoot } from '../../src/boot/decide';
import type { BootFacts, BootPlan } from '../../src/boot/decide';
import { defaultConfig } from '../../src/config/defaults';
import { testConfig } from '../fakes/config';

/** A full configuration, saved and checked, no flags, not in safe mode. */
const facts = (over: Partial<BootFacts> = {}): BootFacts => ({ config: testConfig(), errors: 0, unchecked: false, maintenance: false, safe: undefined, flagged: false, ...over });

const NOT_CONFIGURED = 'not configured: set wifi.ssid, service.url, service.apiKey, device.<name>';
const INVALID = 'saved configuration invalid (see the errors above); fix with set() and save()';
const CHECKING = 'checking the saved configuration; the agent starts after a restart';
const REMOTE = 'checking a configuration from the service; the agent starts after a restart';
const MAINTENANCE = 'maintenance boot: agent and watchdog off until the next reboot; flash or copy files now';
const SAFE = '5 reboots in a row within 120 s';

const cases: [string, BootFacts, BootPlan][] = [
  ['a full configuration: the agent starts', facts(), { mode: 'running', why: '', check: false, onTrial: false }],
  ['no configuration: console only, naming what to set', facts({ config: defaultConfig() }), { mode: 'console-only', why: NOT_CONFIGURED, check: false, onTrial: false }],
  ['part of a configuration: only what is missing', facts({ config: { ...testConfig(), service: { url: 'http://h', apiKey: '' } } }), { mode: 'console-only', why: 'not configured: set service.apiKey', check: false, onTrial: false }],
  ['an invalid configuration (the defaults in its place): console only', facts({ config: defaultConfig(), errors: 3 }), { mode: 'console-only', why: INVALID, check: false, onTrial: false }],
  ['a file from flash.sh, not checked yet: checked after the boot', facts({ unchecked: true }), { mode: 'console-only', why: CHECKING, check: true, onTrial: false }],
  ['a file from flash.sh is a person\'s choice, not a change on trial, whatever flag is left', facts({ unchecked: true, flagged: true }), { mode: 'console-only', why: CHECKING, check: true, onTrial: false }],
  ['a document of the configuration device kept on flash: checked after the boot, before the agent', facts({ remote: true }), { mode: 'console-only', why: REMOTE, check: true, onTrial: false }],
  ['a document being applied when the power went: its change stays on trial, even with the save half done', facts({ unchecked: true, flagged: true, remote: true }), { mode: 'console-only', why: CHECKING, check: true, onTrial: true }],
  ['a kept document waits in safe mode (the check is skipped there)', facts({ remote: true, safe: SAFE }), { mode: 'safe', why: SAFE, check: true, onTrial: false }],
  ['the maintenance flag: neither agent nor watchdog', facts({ maintenance: true }), { mode: 'console-only', why: MAINTENANCE, check: false, onTrial: false }],
  ['the maintenance flag wins over safe mode', facts({ maintenance: true, safe: SAFE }), { mode: 'console-only', why: MAINTENANCE, check: false, onTrial: false }],
  ['a maintenance boot still checks a file from flash.sh', facts({ maintenance: true, unchecked: true }), { mode: 'console-only', why: MAINTENANCE, check: true, onTrial: false }],
  ['safe mode, with its reason', facts({ safe: SAFE }), { mode: 'safe', why: SAFE, check: false, onTrial: false }],
  ['safe mode wins over an invalid configuration', facts({ safe: SAFE, errors: 1 }), { mode: 'safe', why: SAFE, check: false, onTrial: false }],
  ['a change that had not delivered when the board went down: still on trial', facts({ flagged: true }), { mode: 'running', why: '', check: false, onTrial: true }],
  ['a change on trial in safe mode stays on trial for resume()', facts({ flagged: true, safe: SAFE }), { mode: 'safe', why: SAFE, check: false, onTrial: true }],
];

describe('the boot decision', () => {
  for (const [name, f, plan] of cases) {
    it(name, () => {
      expect(decideBoot(f)).toEqual(plan);
    });
  }

  it('reads nothing but its facts: the same facts, the same plan', () => {
    const f = facts({ flagged: true });
    const copy = structuredClone(f);
    expect(decideBoot(f)).toEqual(decideBoot(f));
    expect(f).toEqual(copy);
  });
});
