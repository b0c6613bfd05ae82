import type { Platform } from '../ports';
import { kalumaFiles } from './files';
import { kalumaPins } from './pins';
import { kalumaProgram } from './program';
import { kalumaSockets } from './sockets';
import { kalumaConsole, kalumaKv, kalumaLog, kalumaSystem, kalumaWatchdog } from './system';
import { kalumaClock, kalumaTimers } from './time';
import { kalumaWifi } from './wifi';

/** The real board. Nothing else in the program touches Kaluma. */
export function createKalumaPlatform(): Platform {
  return {
    clock: kalumaClock,
    timers: kalumaTimers,
    pins: kalumaPins,
    wifi: kalumaWifi,
    sockets: kalumaSockets,
    kv: kalumaKv,
    files: kalumaFiles,
    watchdog: kalumaWatchdog,
    system: kalumaSystem,
    log: kalumaLog,
    console: kalumaConsole,
    program: kalumaProgram,
  };
}
