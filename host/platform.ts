// The agent's platform on a PC: real TCP, files under a data directory (so
// a restart resumes), simulated sensors and Wi-Fi, and console commands
// collected for the stdin console.
import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Platform, ProgramStore } from '../src/ports/ports';
import { createNodeFileStore } from './ports/files';
import { createSimI2c } from './ports/i2c';
import type { SimI2c } from './ports/i2c';
import { attachBoardChips } from './ports/i2c-chips';
import { createNodeKvStore } from './ports/kv';
import { createSimPins } from './ports/pins';
import { noProgram } from './ports/program';
import type { SimOutput, SimOutputChange, SimPins } from './ports/pins';
import { createNodeSockets } from './ports/sockets';
import { createNodeTime } from './ports/time';
import { createSimWifi } from './ports/wifi';
import type { SimWifi } from './ports/wifi';

export interface HostPlatform extends Platform {
  pins: SimPins;
  /** Bus 0 carries a BME280 (0x76), an SHT4x (0x44) and a BH1750 (0x23); faults can be set on them. */
  i2c: SimI2c;
  wifi: SimWifi;
  commands: Map<string, (...args: unknown[]) => unknown>;
  /** Set by the simulator: what a reboot does on the host. */
  onReboot: () => void;
}

/**
 * The board's data is its owner's alone: the config holds the API key and
 * the Wi-Fi password. Directories 0700, files 0600, also those an earlier
 * version left readable (the stores make theirs so from now on).
 */
function keepPrivate(dir: string): void {
  chmodSync(dir, 0o700);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) keepPrivate(p);
    else if (e.isFile()) chmodSync(p, 0o600);
  }
}

export function createHostPlatform(o: {
  dataDir: string;
  ssid: string;
  print?: (line: string) => void;
  program?: ProgramStore;
  /** Told of every driven pin's opening, level change and release (host/ports/pins.ts). */
  onOutput?: (out: Readonly<SimOutput>, change: SimOutputChange, from: number) => void;
}): HostPlatform {
  mkdirSync(join(o.dataDir, 'files'), { recursive: true, mode: 0o700 });
  keepPrivate(o.dataDir);
  const { clock, timers } = createNodeTime();
  const print = o.print ?? ((l: string) => console.log(l));
  const hp: HostPlatform = {
    clock,
    timers,
    pins: createSimPins({ clock, onOutput: o.onOutput }),
    i2c: createSimI2c({ clock }),
    wifi: createSimWifi({ ssid: o.ssid }),
    sockets: createNodeSockets(),
    kv: createNodeKvStore(join(o.dataDir, 'kv.json')),
    files: createNodeFileStore(join(o.dataDir, 'files')),
    // The host has no hardware watchdog; feeding is a no-op.
    watchdog: { start: () => undefined, feed: () => undefined, keepAlive: () => undefined },
    system: {
      boardName: () => 'pico-w',
      boardUid: () => 'HOST000000000001',
      memory: () => undefined,
      reboot: () => hp.onReboot(),
      seedRandom: () => undefined,
    },
    log: { info: print, error: (l) => print('! ' + l) },
    console: { expose: (name, fn) => void hp.commands.set(name, fn) },
    program: o.program ?? noProgram,
    commands: new Map(),
    onReboot: () => undefined,
  };
  attachBoardChips(hp.i2c, { clock });
  return hp;
}
