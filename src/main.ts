// Device entry: build the Kaluma ports, boot, expose the console commands
// (cold code, loaded from the program area when typed). Exports nothing (the
// bundle is a script, not a module) and never throws at top level: a
// top-level exception unloads the whole program.
import { createColdLoader, freeAfterCollection } from './cold';
import type { ConfigCodec } from './config/store';
import { exposeCommands } from './console/stubs';
import { createKalumaPlatform } from './ports/kaluma/index';
import { boot } from './runtime';
import type { Runtime } from './runtime';
import { sharedTable } from './shared';

/** This build's id, set by scripts/build.ts; cold code of another build is refused. */
declare const __BUILD__: string;
/** The config checker's id (CRC of the cold module 'check'), set by scripts/build.ts. */
declare const __CHECKER__: string;

try {
  const p = createKalumaPlatform();
  // Set once booted; the checker is loaded during the boot, before that.
  const held: { rt?: Runtime } = {};
  // Free heap for cold code: what is free now, less what a running agent
  // keeps for its own requests (agent.heapFloorBytes), which may be under
  // way while a command loads. Kept for every command, even one done when
  // it returns: free is not free in one piece. Measured on the device's
  // engine: with the reserve left out, the second set() on a running agent
  // found 56 KB free and died reading its 15 KB module (no block that big
  // was left between what the first one and the agent had used).
  const room = (): number | undefined => {
    const free = freeAfterCollection(() => p.system.memory());
    const rt = held.rt;
    const a = rt && rt.agent() ? rt.config().agent.heapFloorBytes : 0;
    return free === undefined ? undefined : free - a;
  };
  const cold = createColdLoader({ program: p.program, build: __BUILD__, shared: sharedTable, room });
  // The program's messages are on flash too (scripts/messages.ts): the
  // build put a stand-in reader in front of the program, this is the real one.
  const reader = (globalThis as unknown as { __m?: { r?: (i: number) => string } }).__m;
  if (reader) {
    reader.r = cold.message;
    const why = cold.messagesError();
    if (why) console.error('messages: ' + why + '; log lines show #<number> in their place');
  }
  // During the boot, a saved config not checked yet (the first boot after it
  // was flashed) is left for later: the checker's load needs the heap that
  // the agent's code and the program's top level hold until the boot returns
  // (src/parts.ts). The runtime checks it then, and restarts into the agent.
  const codec = (): ConfigCodec | string | undefined => {
    if (!held.rt) return undefined;
    const m = cold.load<ConfigCodec>('check');
    return m.ok ? m.value : m.error;
  };
  held.rt = boot(p, { codec, checker: __CHECKER__ });
  exposeCommands(held.rt, cold);
} catch (e) {
  console.error('boot failed: ' + String(e) + '; the console is still up');
}
