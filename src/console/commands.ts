// The commands typed at the serial console, each a global function (the REPL
// evaluates lines in the global scope), all together for the tests. On the
// board they are cold code, reached through stand-ins (src/console/stubs.ts).
import type { Runtime } from '../runtime';
import { configCommands, showCommands, stateCommands } from './cmd-config';
import { helpCommands } from './cmd-help';
import { scanCommands } from './cmd-i2c';
import { provisionCommands, testCommands } from './cmd-service';
import type { Commands } from './shared';
import { context } from './shared';
import { followUp } from './stubs';

/** Every command, bound to `rt`; also exposed on the console. */
export function installCommands(rt: Runtime): Commands {
  const c = context(rt);
  const cmds: Commands = {};
  for (const part of [helpCommands(c), stateCommands(c), showCommands(c), configCommands(c), testCommands(c), provisionCommands(c), scanCommands(c)]) for (const n in part) cmds[n] = part[n] as Commands[string];
  const set = (key: string, value: unknown): void => void (cmds['set'] as Commands[string])(key, value);
  for (const name in cmds) {
    const cmd = cmds[name] as Commands[string];
    rt.p.console.expose(name, (...a: unknown[]) => {
      const r = cmd(...a);
      followUp(r, set);
      return r;
    });
  }
  return cmds;
}
