// The console's resident part: one small function per command that loads the
// cold module holding it (src/cold.ts), runs it, and lets it go, so the
// commands' code is on the heap only while one runs. A module that cannot be
// loaded makes the command say why in one line; the agent is untouched.
import type { ColdLoader } from '../cold';
import type { Runtime } from '../runtime';
import type { ColdCommands } from './run';

/** Command name -> the cold module it lives in. */
export const COMMAND_MODULES: Record<string, string> = {
  help: 'help',
  status: 'state',
  config: 'show',
  set: 'config',
  unset: 'config',
  save: 'state',
  discard: 'state',
  importWifi: 'config',
  sensors: 'state',
  resume: 'state',
  maintenance: 'state',
  reboot: 'state',
  test: 'test',
  provision: 'provision',
};

/** The module of a command with these arguments: help('keys') has one of its own. */
export const moduleFor = (name: string, args: unknown[]): string => (name === 'help' && args[0] === 'keys' ? 'keys' : (COMMAND_MODULES[name] as string));

export function exposeCommands(rt: Runtime, cold: ColdLoader): void {
  const call = (name: string, args: unknown[]): void => {
    const m = cold.load<ColdCommands>(moduleFor(name, args));
    if (!m.ok) {
      rt.consoleError = name + '(): ' + m.error;
      rt.p.log.error(rt.consoleError);
      return;
    }
    try {
      m.value(rt, name, args);
    } catch (e) {
      rt.consoleError = name + '(): ' + String(e);
      rt.p.log.error(rt.consoleError);
    }
  };
  for (const name in COMMAND_MODULES) rt.p.console.expose(name, (...args: unknown[]) => call(name, args));
}
