// The simulated board as npm start shows it: the pins' change events, one
// console line per change, and the dashboard panel's rows named after the
// config's outputs.
import { describe, expect, it } from 'vitest';
import type { OutputConfig } from '../../src/config/types';
import { createSimPins } from '../../host/ports/pins';
import type { SimOutput, SimOutputChange } from '../../host/ports/pins';
import { boardPanel, levelText, outputLine } from '../../host/sim-board';
import { createFakeTime } from '../fakes/time';

const relay: OutputConfig = { name: 'relay', kind: 'digital', pin: 16, sourceId: 5, sourcePin: 1234, field: '', pollMs: 5000, safe: 0, failsafeMs: 600000, invert: false };
const fan: OutputConfig = { name: 'fan', kind: 'pwm', pin: 17, sourceId: 6, sourcePin: 4321, field: 'fan', pollMs: 5000, safe: 0, failsafeMs: 600000, freqHz: 2000, scale: 100 };

function board() {
  const lines: string[] = [];
  const events: [number, SimOutputChange, number, number][] = [];
  const names: Record<number, string> = { 16: 'relay', 17: 'fan' };
  const pins = createSimPins({
    clock: createFakeTime().clock,
    random: () => 0.5,
    onOutput: (o: Readonly<SimOutput>, change, from) => {
      events.push([o.pin, change, from, o.level]);
      lines.push(outputLine(o, change, from, names[o.pin] ?? ''));
    },
  });
  return { pins, lines, events };
}

describe('simulated board outputs', () => {
  it('tells of an opening, of each change of level (not of a write of the same level) and of a release', () => {
    const b = board();
    const r = b.pins.digitalOut(16);
    r.write(false);
    r.write(true);
    r.write(true);
    r.write(false);
    r.close();
    r.close();
    expect(b.events).toEqual([
      [16, 'open', 0, 0],
      [16, 'level', 0, 1],
      [16, 'level', 1, 0],
      [16, 'close', 0, 0],
    ]);
    expect(b.lines).toEqual(['GP16 relay: digital output, off', 'GP16 relay: off -> ON', 'GP16 relay: ON -> off', 'GP16 relay: released at off']);
    expect(b.pins.outputs()).toEqual([{ pin: 16, kind: 'digital', level: 0, writes: 4, open: false }]);
  });

  it('prints a pwm duty as a percentage', () => {
    const b = board();
    const f = b.pins.pwmOut(17, 2000);
    f.duty(0.4, 2000);
    f.duty(0.125, 2000);
    f.duty(7, 2000);
    expect(b.lines).toEqual(['GP17 fan: pwm output at 2000 Hz, 0%', 'GP17 fan: 0% -> 40%', 'GP17 fan: 40% -> 12.5%', 'GP17 fan: 12.5% -> 100%']);
    expect(levelText('digital', 1)).toBe('ON');
    expect(levelText('pwm', 0.333)).toBe('33.3%');
  });

  it("names a line by the config's output, and leaves an unnamed pin unnamed", () => {
    const b = board();
    b.pins.digitalOut(3).write(true);
    expect(b.lines).toEqual(['GP3: digital output, off', 'GP3: off -> ON']);
  });
});

describe('the dashboard panel', () => {
  it("lists the config's outputs (not driven yet: no level) and every driven pin, by GPIO", () => {
    const b = board();
    expect(boardPanel(b.pins, [fan, relay], 'sim').outputs).toEqual([
      { gpio: 16, name: 'relay', kind: 'digital', level: null, freqHz: null, writes: 0, open: false },
      { gpio: 17, name: 'fan', kind: 'pwm', level: null, freqHz: 2000, writes: 0, open: false },
    ]);
    b.pins.digitalOut(16).write(true);
    const f = b.pins.pwmOut(17, 2000);
    f.duty(0.25, 2000);
    b.pins.digitalOut(2).write(true);
    f.close();
    const p = boardPanel(b.pins, [fan, relay], 'pico-w sim');
    expect(p.title).toBe('pico-w sim');
    expect(p.outputs).toEqual([
      { gpio: 2, name: '', kind: 'digital', level: 1, freqHz: null, writes: 1, open: true },
      { gpio: 16, name: 'relay', kind: 'digital', level: 1, freqHz: null, writes: 1, open: true },
      { gpio: 17, name: 'fan', kind: 'pwm', level: 0.25, freqHz: 2000, writes: 1, open: false },
    ]);
  });

  it('takes a config without outputs', () => {
    const b = board();
    b.pins.digitalOut(16).write(true);
    expect(boardPanel(b.pins, undefined, 'sim').outputs.map((o) => [o.gpio, o.name, o.level])).toEqual([[16, '', 1]]);
    expect(boardPanel(b.pins, [], 'sim').outputs).toHaveLength(1);
  });
});
