// Device entry: build the Kaluma ports and hand them to the boot sequence.
// Exports nothing (the bundle is a script, not a module) and never throws at
// top level: a top-level exception unloads the whole program.
import { boot } from './boot';
import { createKalumaPlatform } from './ports/kaluma/index';

try {
  boot(createKalumaPlatform());
} catch (e) {
  console.error('boot failed: ' + String(e));
}
