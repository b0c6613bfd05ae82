// Device entry: build the Kaluma ports, boot, expose the console commands
// (cold code, loaded from the program area when typed). Exports nothing (the
// bundle is a script, not a module) and never throws at top level: a
// top-level exception unloads the whole program.
import { createColdLoader } from './cold';
import { exposeCommands } from './console/stubs';
import { createKalumaPlatform } from './ports/kaluma/index';
import { boot } from './runtime';
import { SHARED } from './shared';

/** This build's id, set by scripts/build.ts; cold code of another build is refused. */
declare const __BUILD__: string;

try {
  const p = createKalumaPlatform();
  exposeCommands(boot(p), createColdLoader({ program: p.program, build: __BUILD__, shared: SHARED }));
} catch (e) {
  console.error('boot failed: ' + String(e) + '; the console is still up');
}
