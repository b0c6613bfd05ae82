// Simulated sensors behind the Pins port, with believable signals:
// - pin 30 (internal temperature): about 21 C drifting slowly, with noise;
// - ADC pins 26-28: a light level following a day curve (a simulated day
//   lasts `dayMs`, 10 minutes by default so the curve moves on screen);
// - digital pins: a door switch that toggles every few minutes;
// - the LED: its state is kept for the console and tests.
import type { AnalogIn, Clock, DigitalIn, DigitalOut, Pins } from '../../src/ports/ports';

/** What the program drives on a pin: a digital level (0/1) or a PWM duty (0..1). */
export interface SimOutput {
  pin: number;
  kind: 'digital' | 'pwm';
  level: number;
  freqHz?: number;
  /** Writes since the pin was opened. */
  writes: number;
  open: boolean;
}

/** What happened to a driven pin: opened, its level changed (from `from`), or released. */
export type SimOutputChange = 'open' | 'level' | 'close';

export interface SimPins extends Pins {
  ledOn(): boolean;
  /** Every pin opened as an output, by pin number. */
  outputs(): SimOutput[];
}

/** ADC fraction the RP2040 gives for a die temperature (inverse of its formula). */
export function fractionForTempC(c: number, vrefV = 3.3): number {
  return (0.706 - (c - 27) * 0.001721) / vrefV;
}

export function createSimPins(o: {
  clock: Clock;
  dayMs?: number;
  doorPeriodMs?: number;
  random?: () => number;
  /** Told when a pin is opened as an output, when its level changes (not on a write of the same level), and when it is released. */
  onOutput?: (out: Readonly<SimOutput>, change: SimOutputChange, from: number) => void;
}): SimPins {
  const random = o.random ?? Math.random;
  const dayMs = o.dayMs ?? 600000;
  const doorMs = o.doorPeriodMs ?? 180000;
  let led = false;
  const analogIn = (pin: number): AnalogIn => ({
    readFraction() {
      const t = o.clock.uptimeMs();
      if (pin === 30) {
        const c = 21 + 1.5 * Math.sin((2 * Math.PI * t) / (dayMs * 1.7)) + (random() - 0.5) * 0.4;
        return fractionForTempC(c);
      }
      const sun = Math.max(0, Math.sin((2 * Math.PI * t) / dayMs));
      return Math.min(0.999, 0.02 + 0.9 * sun + (random() - 0.5) * 0.01);
    },
    close: () => undefined,
  });
  const digitalIn = (pin: number): DigitalIn => ({
    read: () => (Math.floor(o.clock.uptimeMs() / doorMs + pin) % 2 === 0 ? 0 : 1),
    close: () => undefined,
  });
  const out = (set: (v: boolean) => void): DigitalOut => ({ write: set, close: () => set(false) });
  const driven = new Map<number, SimOutput>();
  const tell = (s: SimOutput, change: SimOutputChange, from: number): void => {
    if (o.onOutput) o.onOutput(s, change, from);
  };
  const open = (pin: number, kind: SimOutput['kind'], freqHz?: number): SimOutput => {
    const s: SimOutput = { pin, kind, level: 0, writes: 0, open: true };
    if (freqHz !== undefined) s.freqHz = freqHz;
    driven.set(pin, s);
    tell(s, 'open', 0);
    return s;
  };
  const set = (s: SimOutput, level: number): void => {
    const from = s.level;
    s.level = level;
    s.writes++;
    if (level !== from) tell(s, 'level', from);
  };
  const release = (s: SimOutput): void => {
    if (!s.open) return;
    s.open = false;
    tell(s, 'close', s.level);
  };
  return {
    analogIn,
    digitalIn,
    digitalOut: (pin) => {
      const s = open(pin, 'digital');
      return {
        write: (high) => set(s, high ? 1 : 0),
        close: () => release(s),
      };
    },
    pwmOut: (pin, freqHz) => {
      const s = open(pin, 'pwm', freqHz);
      return {
        duty: (d) => set(s, Math.min(1, Math.max(0, d))),
        close: () => release(s),
      };
    },
    led: () => out((v) => (led = v)),
    ledOn: () => led,
    outputs: () => [...driven.values()].sort((a, b) => a.pin - b.pin),
  };
}
