// Device entry: build the Kaluma ports, boot, expose the console commands
// (cold code, loaded from the program area when typed). Exports nothing (the
// bundle is a script, not a module) and never throws at top level: a
// top-level exception unloads the whole program.
import { createColdLoader } from './cold';
import type { ConfigCodec } from './config/store';
import { exposeCommands } from './console/stubs';
import { createKalumaPlatform } from './ports/kaluma/index';
import { nextTurn } from './ports/kaluma/time';
import { openBootState } from './agent/bootstate';
import { createConfigStore } from './config/store';
import { decideBoot } from './boot/decide';
import { createTrial } from './config/trial';
import { createSupervisor } from './agent/supervisor';
import { createLed } from './agent/led';
import { bootWith } from './runtime';
import type { Runtime } from './runtime';
import { sharedTable } from './shared';

/** This build's id, set by scripts/build/build.ts; cold code of another build is refused. */
declare const __BUILD__: string;
/** The config checker's id (CRC of the cold module 'check'), set by scripts/build/build.ts. */
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
    if (p.system.collect) p.system.collect();
    const m = p.system.memory();
    const free = m ? m.heapTotal - m.heapUsed : undefined;
    const rt = held.rt;
    const a = rt && rt.agent() ? rt.config().agent.heapFloorBytes : 0;
    return free === undefined ? undefined : free - a;
  };
  const cold = createColdLoader({ program: p.program, build: __BUILD__, shared: sharedTable, room });
  // The program's messages are on flash too (scripts/build/messages.ts): the
  // build put a stand-in reader in front of the program, this is the real one.
  const reader = (globalThis as unknown as { __m?: { r?: (i: number) => string } }).__m;
  if (reader) {
    reader.r = cold.message;
    const why = cold.messagesError();
    if (why) console.error('messages: ' + why + '; log lines show #<number> in their place');
  }
  // During the boot, a saved config not checked yet (the first boot after it
  // was flashed) is left for later: the checker's load needs the heap that
  // the agent's code holds until the boot returns (src/parts.ts). The
  // runtime checks it then, and restarts into the agent.
  const codec = (): ConfigCodec | string | undefined => {
    if (!held.rt) return undefined;
    const m = cold.load<ConfigCodec>('check');
    return m.ok ? m.value : m.error;
  };
  const start = (b: typeof bootWith, s: typeof createConfigStore, o: typeof openBootState, d: typeof decideBoot, t: typeof createTrial, v: typeof createSupervisor, l: typeof createLed, x: typeof exposeCommands): void => {
    // What the top level left (its own code, now unreachable) goes before
    // the boot adds its own: the engine would let it ride up the steps.
    if (p.system.collect) p.system.collect();
    try {
      // Cold code the running agent loads by name: 'health' for each health
      // report, 'outputs' once and kept while they run, 'output-read' for each read.
      held.rt = b(s, o, d, t, v, l, p, { codec, checker: __CHECKER__, load: cold.load });
      x(held.rt, cold);
    } catch (e) {
      console.error('boot failed: ' + String(e) + '; the console is still up');
    }
  };
  // Every board boots once this top level has returned, when the program's
  // top-level code (and, with no config, the agent's part, let go as soon
  // as the boot finds none) can be collected first. Measured on the
  // device's engine, minus the bench's stand-in (whose own top-level code
  // goes at the same moment): the boot's peak with no config 99.5 -> 93.9
  // KB; with the reference config, by a probe at the boot's end, 22 steps
  // of the engine's collection limit (105.3 KB) where booting here reached
  // 23 (110.8 KB). The loop runs the boot before it reads the next console
  // line; the watchdog a previous program may have left armed is fed first.
  //
  // The boot, the makers and the decision only the boot calls, and
  // exposeCommands, reach start() as arguments, never by name from inside a
  // function: a module function that only the top level names is held in one
  // of its registers and goes, with its code, once the top level returns;
  // named from inside any function it becomes a binding of the module scope,
  // which every closure keeps. Measured on the device's engine, a running agent's floor:
  // boot and exposeCommands named in start() +1.7 KB; the config store's and
  // the boot state's makers named in boot() +1.7 KB (with the store's load(),
  // which the boot lets go once done). Handed in as one object instead, the
  // floor was 1.1 KB higher than as arguments.
  p.watchdog.keepAlive();
  nextTurn(start.bind(null, bootWith, createConfigStore, openBootState, decideBoot, createTrial, createSupervisor, createLed, exposeCommands));
} catch (e) {
  console.error('boot failed: ' + String(e) + '; the console is still up');
}
