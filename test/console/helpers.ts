// What the console tests share: a board booted on a configuration, the lines
// one command printed, and everything on its flash as text.
import type { AgentConfig } from '../../src/config/types';
import { testConfig } from '../fakes/config';
import { Board, DEAD_URL, text } from '../runtime/harness';
import type { Booted } from '../runtime/harness';

/** A board with `cfg` saved (default: the test config against a port nobody listens on), booted. */
export function fresh(cfg: AgentConfig = testConfig(DEAD_URL)): { board: Board; b: Booted } {
  const board = new Board();
  board.save(cfg);
  return { board, b: board.boot() };
}

/** Lines printed by one command, info and error alike. */
export function said(b: Booted, f: () => unknown): string[] {
  const from = b.out().length;
  f();
  return b.out().slice(from);
}

/** Every byte of every file on the board, as text. */
export function wholeFlash(board: Board): string {
  return board.files
    .paths()
    .map((p) => p + '\n' + text(board.files.contents(p)))
    .join('\n');
}
