// What the Sensirion humidity sensors (SHT3x, SHT4x) share: a single-shot
// command, a wait, and six bytes back, each 16-bit word followed by its CRC-8.
// Each kind's file names its command, its wait and its humidity line.
import type { DriverInit, DriverSteps } from './driver';
import { transfer } from './transfer';

/** CRC-8 of b[at] and b[at + 1]: polynomial 0x31, initial 0xFF, no reflection (both datasheets). */
export function crc8(b: Uint8Array, at: number): number {
  let c = 0xff;
  for (let i = at; i < at + 2; i++) {
    c ^= b[i]!;
    for (let k = 0; k < 8; k++) c = c & 0x80 ? ((c << 1) ^ 0x31) & 0xff : c << 1;
  }
  return c;
}

/**
 * A kind of them: `cmd` starts one measurement, whose result is ready after
 * `waitMs`; temperature is -45 + 175 * S / 65535 C on both, relative
 * humidity `rhZero` + `rhSpan` * S / 65535, clamped to 0..100 %RH.
 */
export function shtSteps(cmd: number[], waitMs: number, rhZero: number, rhSpan: number): DriverSteps {
  return {
    start_(bus, addr) {
      const w = transfer(bus, addr, 'starting a measurement', cmd, 0);
      return w === undefined ? waitMs : w;
    },
    read_(bus, addr) {
      const b = transfer(bus, addr, 'reading the measurement', undefined, 6);
      if (typeof b === 'string') return b;
      if (crc8(b, 0) !== b[2] || crc8(b, 3) !== b[5]) return 'CRC mismatch';
      const rh = rhZero + (rhSpan * ((b[3]! << 8) | b[4]!)) / 65535;
      return [-45 + (175 * ((b[0]! << 8) | b[1]!)) / 65535, rh < 0 ? 0 : rh > 100 ? 100 : rh];
    },
  };
}

/** Nothing to ready: a missing chip shows at the first start. */
export const noInit: DriverInit = () => [];
