// SHT3x (0x44/0x45): single shot, high repeatability, no clock stretching
// (0x24 0x00): at most 15.5 ms per the datasheet, so 16; RH = 100 * S / 65535.
import type { Driver } from '../driver';
import { noInit, shtSteps } from '../sht';

/** A sample's steps: the cold module 'sht3x'. */
export const steps = /* @__PURE__ */ shtSteps([0x24, 0x00], 16, 0, 100);
/** Nothing to ready: the cold module 'sht3x-init'. */
export const init = noInit;
export const driver: Driver = { init_: init, ...steps };
