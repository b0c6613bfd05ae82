import type * as Cyw43 from 'pico_cyw43';
import type { DigitalOut, Pins } from '../ports';

// The radio chip's module, required by the first led(); the firmware has
// already loaded it at start-up, so it costs no module of its own.
let cyw43: Cyw43.PicoCYW43 | undefined;

export const kalumaPins: Pins = {
  // analogRead(30) is the internal temperature sensor; the ADC input is
  // re-selected on every call, so there is nothing to close.
  analogIn: (pin) => ({ readFraction: () => analogRead(pin), close: () => undefined }),
  digitalIn: (pin, pull) => {
    pinMode(pin, pull === 'up' ? INPUT_PULLUP : pull === 'down' ? INPUT_PULLDOWN : INPUT);
    return { read: () => (digitalRead(pin) ? 1 : 0), close: () => pinMode(pin, INPUT) };
  },
  digitalOut: (pin) => {
    pinMode(pin, OUTPUT);
    return { write: (high) => digitalWrite(pin, high ? 1 : 0), close: () => pinMode(pin, INPUT) };
  },
  // The global analogWrite, no 'pwm' module: each call sets the slice up again.
  // Bound functions, not arrows: no code of their own on the heap (and such an
  // arrow is a SyntaxError to the engine's parser: scripts/build/compat.ts).
  pwmOut: (pin) => ({ duty: analogWrite.bind(null, pin), close: noTone.bind(null, pin) }),
  // On W boards the LED hangs off the radio chip (WL_GPIO0) and wants a boolean.
  led: (): DigitalOut => {
    if (!cyw43) cyw43 = new ((globalThis as unknown as { require(id: 'pico_cyw43'): typeof Cyw43 }).require('pico_cyw43').PicoCYW43)();
    const chip = cyw43;
    return { write: (on) => chip.putGpio(0, on), close: () => chip.putGpio(0, false) };
  },
};
