// Device entry: build the Kaluma ports, boot, install the console commands.
// Exports nothing (the bundle is a script, not a module) and never throws at
// top level: a top-level exception unloads the whole program.
import { installCommands } from './console/commands';
import { createKalumaPlatform } from './ports/kaluma/index';
import { boot } from './runtime';

try {
  installCommands(boot(createKalumaPlatform()));
} catch (e) {
  console.error('boot failed: ' + String(e) + '; the console is still up');
}
