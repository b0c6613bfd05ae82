// What the simulated board drives, for people: the dashboard's "Simulated
// board" panel (the pins named after the config's outputs) and one console
// line per change of a driven pin. The service only ever sees the panel's
// data, through ServiceOptions.board.
import type { OutputConfig } from '../src/config/types';
import type { SimOutput, SimOutputChange, SimPins } from './ports/pins';
import type { BoardOutputRow, BoardPanel } from './service/dashboard';

/** A level as a person reads it: digital ON/off, pwm a percentage. */
export function levelText(kind: SimOutput['kind'], level: number): string {
  if (kind === 'pwm') return String(Math.round(level * 1000) / 10) + '%';
  return level ? 'ON' : 'off';
}

/**
 * The panel: every output the config names (not driven yet: level null) and
 * every pin the program drives, by GPIO number.
 */
export function boardPanel(pins: SimPins, outputs: readonly OutputConfig[] | undefined, title: string): BoardPanel {
  const driven = pins.outputs();
  const rows: BoardOutputRow[] = [];
  const named = new Set<number>();
  for (const o of outputs ?? []) {
    const d = driven.find((x) => x.pin === o.pin);
    named.add(o.pin);
    rows.push({
      gpio: o.pin,
      name: o.name,
      kind: d ? d.kind : o.kind,
      level: d ? d.level : null,
      freqHz: d ? (d.freqHz ?? null) : o.kind === 'pwm' ? (o.freqHz ?? null) : null,
      writes: d ? d.writes : 0,
      open: d ? d.open : false,
    });
  }
  for (const d of driven) {
    if (named.has(d.pin)) continue;
    rows.push({ gpio: d.pin, name: '', kind: d.kind, level: d.level, freqHz: d.freqHz ?? null, writes: d.writes, open: d.open });
  }
  rows.sort((a, b) => a.gpio - b.gpio);
  return { title, outputs: rows };
}

/** One line for a change of a driven pin, e.g. `GP16 relay: off -> ON`; `name` may be ''. */
export function outputLine(out: Readonly<SimOutput>, change: SimOutputChange, from: number, name: string): string {
  const at = 'GP' + out.pin + (name ? ' ' + name : '') + ': ';
  if (change === 'open') return at + (out.kind === 'pwm' ? `pwm output at ${out.freqHz ?? '?'} Hz` : 'digital output') + ', ' + levelText(out.kind, out.level);
  if (change === 'close') return at + 'released at ' + levelText(out.kind, out.level);
  return at + levelText(out.kind, from) + ' -> ' + levelText(out.kind, out.level);
}
