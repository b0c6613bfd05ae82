// Which pins a sensor or an output may use: cold code, not in src/board.ts,
// whose shared exports stay on every running board's heap.
import type { Board } from '../board';
import type { SensorKind } from './types';

/** undefined when `pin` may serve a sensor of kind `use` (or an output); otherwise a one-line reason. */
export function checkPin(b: Board, pin: number, use: SensorKind | 'output'): string | undefined {
  const at = 'pin ' + pin;
  const signal = b.radioPins[pin];
  if (signal !== undefined) {
    return at + ': GP' + pin + ' belongs to the Wi-Fi radio (' + signal + ') and must never be used';
  }
  const temp = b.temperature.pin;
  if (use === 'temperature') {
    return pin === temp ? undefined : at + ': kind temperature reads the internal sensor, pin ' + temp;
  }
  if (pin === temp) return at + ' is the internal temperature sensor; use kind temperature';
  if (b.gpio.indexOf(pin) < 0) return at + ': not a GPIO on the ' + b.name + ' header';
  if (pin === b.bootSkipPin) {
    // The firmware skips the program when this pin reads low at reset.
    return at + ': GP' + pin + ' is the boot-skip pin; ' + (use === 'output' ? 'an output' : 'a sensor') + ' that holds it low at power-up stops the program from starting';
  }
  if (use === 'analog' && b.adcChannels[pin] === undefined) {
    return at + ': analog sensors need an ADC pin (' + Object.keys(b.adcChannels).join(', ') + ')';
  }
  return undefined;
}
