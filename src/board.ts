// Boards are data (boards/*.json, described by boards/schema.json); this file
// only looks them up and applies the pin rules every sensor must obey.

import { BOARDS } from './boards';
import type { SensorKind } from './config/types';

export interface Board {
  name: string;
  mcu: string;
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
  heapBytes: number;
  watchdogMaxMs: number;
  /** The whole artifact, cold code included. */
  bundleBudgetBytes: number;
  /** The resident program, parsed at boot: its bytecode lives on the heap. */
  residentBudgetBytes: number;
  flash: {
    totalBytes: number;
    firmwareBytes: number;
    kvBytes: number;
    kvSlots: number;
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

/** undefined when `pin` may serve a sensor of kind `use`; otherwise a one-line reason. */
export function checkPin(b: Board, pin: number, use: SensorKind): string | undefined {
  const at = 'pin ' + pin;
  const signal = b.radioPins[pin];
  if (signal !== undefined) {
    return at + ': GP' + pin + ' belongs to the Wi-Fi radio (' + signal + ') and must never be used';
  }
  const temp = b.temperature.pin;
  if (use === 'temperature') {
    return pin === temp ? undefined : at + ': kind temperature reads the internal sensor, pin ' + temp;
  }
  if (pin === temp) return at + ' is the internal temperature sensor; use kind temperature';
  if (b.gpio.indexOf(pin) < 0) return at + ': not a GPIO on the ' + b.name + ' header';
  if (pin === b.bootSkipPin) {
    // The firmware samples this pin at reset and skips the program when it reads low.
    return at + ': GP' + pin + ' is the boot-skip pin; a sensor that holds it low at power-up stops the program from starting';
  }
  if (use === 'analog' && b.adcChannels[pin] === undefined) {
    return at + ': analog sensors need an ADC pin (' + Object.keys(b.adcChannels).join(', ') + ')';
  }
  return undefined;
}
