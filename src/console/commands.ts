// The commands a person types at the serial console. Kaluma's REPL
// evaluates each line in the program's global scope, so every command is a
// global function: help(), status(), set('wifi.ssid', 'net'), ... Output is
// short lines that fit an 80-column terminal; secrets are always masked.
//
// The commands are cold code (see src/cold.ts): on the board, and in
// `npm start`, src/console/stubs.ts exposes small stand-ins that load the
// module a command lives in, run it and let it go. This file puts them all
// together for the tests that call them directly.
import type { Runtime } from '../runtime';
import { configCommands, showCommands, stateCommands } from './cmd-config';
import { helpCommands } from './cmd-help';
import { provisionCommands, testCommands } from './cmd-service';
import type { Commands } from './shared';
import { context } from './shared';
import { followUp } from './stubs';

/** Every command, bound to `rt`; also exposed on the console. */
export function installCommands(rt: Runtime): Commands {
  const c = context(rt);
  const cmds: Commands = {};
  for (const part of [helpCommands(c), stateCommands(c), showCommands(c), configCommands(c), testCommands(c), provisionCommands(c)]) for (const n in part) cmds[n] = part[n] as Commands[string];
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
