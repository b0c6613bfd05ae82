// Every board the agent knows. The device build replaces this module with one
// that holds only the board being built (scripts/build/build.ts), so a Pico W
// bundle carries no Pico 2 W data; host code and tests see them all.
import picoW from '../boards/pico-w.json';
import pico2W from '../boards/pico2-w.json';
import type { Board } from './board';

export const BOARDS: Board[] = [picoW, pico2W];
