// Every board the agent knows; the device build puts in its place one that
// holds only the board being built (scripts/build/build.ts).
import picoW from '../boards/pico-w.json';
import pico2W from '../boards/pico2-w.json';

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
  /**
   * For each I2C bus, the GPIOs that can be its SDA, its default first; SCL is
   * the GPIO above. Cold only (scripts/build/build.ts, BOARD_COLD_ONLY): device
   * code reads it through src/config/board-i2c.ts.
   */
  i2cSda?: number[][];
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

export const BOARDS: Board[] = [picoW, pico2W];
