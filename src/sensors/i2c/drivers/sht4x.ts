// SHT4x (0x44/0x45/0x46): measure with high precision (0xFD): at most 8.3 ms
// per the datasheet, so 10; RH = -6 + 125 * S / 65535, which runs past 0..100
// at the ends and is clamped there, as the datasheet says to.
import type { Driver } from '../driver';
import { noInit, shtSteps } from '../sht';

/** A sample's steps: the cold module 'sht4x'. */
export const steps = /* @__PURE__ */ shtSteps([0xfd], 10, -6, 125);
/** Nothing to ready: the cold module 'sht4x-init'. */
export const init = noInit;
export const driver: Driver = { init_: init, ...steps };
