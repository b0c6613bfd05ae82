// The board's I2C: Kaluma's 'i2c' module, as cold code loaded only where a
// sensor on a bus is configured. What Kaluma 1.2.1 does, absorbed here
// (docs/architecture.md, The ports and the runtime's defects):
// - a NACK and a timeout throw the same error, so both are 'no answer'; a
//   data byte refused after the address was taken is no throw, a short count;
// - read() cuts its timeout to 8 bits (5000 ms is 136): ours stays below 256;
// - a transfer of no bytes reports success without touching the bus;
// - a second `new I2C` on an open bus throws: open() first closes the bus
//   through the class's own close(), which reads only `this.bus`;
// - pinMode() never takes a pin back from the I2C block, so digitalWrite
//   cannot clock SCL: analogWrite at duty 0 and 1 drives it instead (the pin
//   goes to the PWM block until the bus is opened again); digitalRead reads
//   a pin whatever block has it.
import type { I2cPorts } from '../ports';

interface KmI2c {
  write(data: Uint8Array, addr: number, timeoutMs: number): number;
  read(length: number, addr: number, timeoutMs: number): Uint8Array;
  close(): void;
}
interface KmI2cClass {
  new (bus: number, o: { sda: number; scl: number; baudrate: number }): KmI2c;
  prototype: KmI2c;
}
/** Kaluma's globals this port uses, reached through globalThis: the host's type check of the tests has no Kaluma declarations. */
interface KmGlobals {
  require(id: 'i2c'): { I2C: KmI2cClass };
  digitalRead(pin: number): number;
  analogWrite(pin: number, duty: number, freqHz: number): void;
  noTone(pin: number): void;
}

/** Per transfer: the longest, 26 bytes of trimming, takes about 3 ms at 100 kHz. */
const TIMEOUT_MS = 50;

/**
 * Each bus's I2C now. Kaluma keeps no state per object (any object with a
 * `bus` drives that bus), so a handle whose bus was opened again since must
 * not touch it: its close() would close the new one.
 */
const current: (KmI2c | undefined)[] = [];

export const kalumaI2c: I2cPorts = {
  open(bus, sda, scl, hz) {
    const km = globalThis as unknown as KmGlobals;
    const I2C = km.require('i2c').I2C;
    // Closes the bus an object names (an I2C of ours, or { bus }: whoever had it).
    const shut = (self: object): void => {
      try {
        I2C.prototype.close.call(self);
      } catch {
        // It was not open.
      }
    };
    const start = (): KmI2c | undefined => {
      shut({ bus });
      current[bus] = new I2C(bus, { sda, scl, baudrate: hz });
      return current[bus];
    };
    /** Ours while it is the bus's I2C; undefined once closed, replaced, or not re-opened. */
    let i2c = start();
    let closed = false;
    const mine = (): KmI2c | undefined => (i2c && current[bus] === i2c ? i2c : undefined);
    const stuck = (): string | undefined => (!km.digitalRead(scl) ? 'SCL held low' : !km.digitalRead(sda) ? 'SDA held low' : undefined);
    return {
      write(addr, bytes) {
        const c = mine();
        if (!c) return 'bus closed';
        if (!bytes.length) return 'no bytes';
        try {
          const n = c.write(new Uint8Array(bytes), addr, TIMEOUT_MS);
          return n === bytes.length ? undefined : 'took ' + n + ' of ' + bytes.length + ' bytes';
        } catch {
          return 'no answer';
        }
      },
      read(addr, length) {
        const c = mine();
        if (!c) return 'bus closed';
        if (length < 1) return 'no bytes';
        try {
          return c.read(length, addr, TIMEOUT_MS);
        } catch {
          return 'no answer';
        }
      },
      stuck,
      recover() {
        if (closed || (i2c && !mine())) return 'bus closed';
        const was = stuck();
        if (i2c) shut(i2c);
        // Closed, the I2C block lets go; a chip still holding SDA gets up to 9 clocks.
        let n = 0;
        for (; n < 9 && km.digitalRead(scl) && !km.digitalRead(sda); n++) {
          km.analogWrite(scl, 0, 10000);
          km.analogWrite(scl, 1, 10000);
        }
        if (n) km.noTone(scl);
        try {
          i2c = start();
        } catch {
          i2c = current[bus] = undefined;
        }
        const now = stuck();
        return (was || 'lines high') + '; ' + n + ' clocks on SCL; ' + (now ? now + ' still' : 'free') + (i2c ? '; re-opened' : '; could not re-open');
      },
      close() {
        const c = mine();
        if (c) {
          shut(c);
          current[bus] = undefined;
        }
        i2c = undefined;
        closed = true;
      },
    };
  },
};
