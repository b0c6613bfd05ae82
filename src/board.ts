// Boards are data (boards/*.json, described by boards/schema.json); this file
// only looks them up. The pin rules every sensor must obey are cold code
// (src/config/pins.ts): only the config's checks and editor apply them.

import { BOARDS } from './boards';

/**
 * A board. Fields marked "build only" are not in the device bundle's copy
 * (scripts/build/build.ts, BOARD_BUILD_ONLY): device code must not read them.
 */
export interface Board {
  name: string;
  /** Build only. */
  mcu?: string;
  /** GPIO numbers on the header, ascending. */
  gpio: number[];
  /** GPIO number -> Wi-Fi chip signal; never to be touched. */
  radioPins: Record<string, string>;
  /** Held low at power-up, the stored program is not started. */
  bootSkipPin: number;
  /** GPIO number -> ADC channel. */
  adcChannels: Record<string, number>;
  temperature: { pin: number; channel: number };
  led: { chip: string; gpio: number };
  /** Build only. */
  heapBytes?: number;
  watchdogMaxMs: number;
  /** Build only: the whole artifact, cold code included. */
  bundleBudgetBytes?: number;
  /** Build only: the resident program, parsed at boot: its bytecode lives on the heap. */
  residentBudgetBytes?: number;
  flash: {
    /** Build only. */
    totalBytes?: number;
    /** Build only. */
    firmwareBytes?: number;
    kvBytes: number;
    /** Build only. */
    kvSlots?: number;
    programBytes: number;
    fsBytes: number;
  };
}

/** The board a configuration names when it names none: the first known (on the device, the one built for). */
export const DEFAULT_BOARD = (BOARDS[0] as Board).name;

export function getBoard(name: string): Board | undefined {
  for (const b of BOARDS) if (b.name === name) return b;
  return undefined;
}
