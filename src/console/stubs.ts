// The console's resident part: a stand-in per command loads the cold module
// holding it, runs it and lets it go, so a command's code is on the heap only
// while it runs; one that cannot be loaded says why in one line.
import type { ColdLoader } from '../cold';
import type { Runtime } from '../runtime';
import type { ColdCommands } from './run';

/** What a command may hand back, through its promise, for set() to make: key and value pairs. */
export type Settings = [string, unknown][];

/**
 * When `r` is a promise that ends in settings, makes each with `set`, in
 * order: provision() ends so, as its module and set()'s together would need
 * more heap than a running agent leaves.
 */
export function followUp(r: unknown, set: (key: string, value: unknown) => void): void {
  if (r && typeof (r as Promise<unknown>).then === 'function') {
    void (r as Promise<unknown>).then((s) => {
      if (!Array.isArray(s)) return;
      for (let i = 0; i < s.length; i++) {
        const kv = s[i] as Settings[0];
        set(kv[0], kv[1]);
      }
    });
  }
}

export function exposeCommands(rt: Runtime, cold: ColdLoader): void {
  // One function for every command, over its name and module: a closure, which
  // keeps less than bound functions would.
  function call(this: void, name: string, module: string, ...args: unknown[]): void {
    // provision() ends in set(): a device made and not set would be lost (its
    // PIN is not shown), so it starts only when set()'s module would load too.
    const later = module === 'provision' ? cold.fits('config') : undefined;
    const m = later ? { ok: false as const, error: 'set() could not follow: ' + later } : cold.load<ColdCommands>(name === 'help' && args[0] === 'keys' ? 'keys' : module);
    if (!m.ok) {
      rt.consoleError = name + '(): ' + m.error;
      rt.p.log.error(rt.consoleError);
      return;
    }
    try {
      followUp(m.value(rt, name, args), set);
    } catch (e) {
      rt.consoleError = name + '(): ' + String(e);
      rt.p.log.error(rt.consoleError);
    }
  }
  const stub = (name: string, module: string) => (...args: unknown[]): void => call(name, module, ...args);
  const set = stub('set', 'config');
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
    i2cScan: 'scan',
    resume: 'state',
    maintenance: 'state',
    reboot: 'state',
    test: 'test',
    provision: 'provision',
  };
  for (const name in modules) rt.p.console.expose(name, stub(name, modules[name] as string));
}
