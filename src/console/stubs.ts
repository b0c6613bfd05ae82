// The console's resident part: one small function per command that loads the
// cold module holding it (src/cold.ts), runs it, and lets it go, so the
// commands' code is on the heap only while one runs. A module that cannot be
// loaded makes the command say why in one line; the agent is untouched.
import type { ColdLoader } from '../cold';
import type { Runtime } from '../runtime';
import type { ColdCommands } from './run';

export function exposeCommands(rt: Runtime, cold: ColdLoader): void {
  // One function for every command, bound to its name and module: a bound
  // function costs the heap less than a closure and its environment each.
  // help('keys') has a module of its own.
  function call(this: void, name: string, module: string, ...args: unknown[]): void {
    const m = cold.load<ColdCommands>(name === 'help' && args[0] === 'keys' ? 'keys' : module);
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
  }
  // Command name -> the cold module it lives in; only the boot reads it.
  const modules: Record<string, string> = {
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
  for (const name in modules) rt.p.console.expose(name, call.bind(undefined, name, modules[name] as string));
}
