// Boards are data (boards/*.json); this file only looks them up. The pin rules
// are cold code (src/config/pins.ts).

import { BOARDS } from './boards';
import type { Board } from './boards';

export type { Board } from './boards';

/** The board a configuration names when it names none: the first known (on the device, the one built for). */
export const DEFAULT_BOARD = (BOARDS[0] as Board).name;

export function getBoard(name: string): Board | undefined {
  for (const b of BOARDS) if (b.name === name) return b;
  return undefined;
}
