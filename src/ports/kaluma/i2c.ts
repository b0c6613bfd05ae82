// The board's I2C: Kaluma's 'i2c' module, as cold code: bundled into the
// I2C sensors' steps (the cold modules 'i2c-go', 'i2c-read') and i2cScan(), loaded with them
// and let go after, so an open bus is a handle of data (Kaluma's I2C object
// and its pins) and its operations are made at each use. What Kaluma 1.2.1
// does, absorbed here
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
  /** Each bus's handle now, kept on Kaluma's class: this code is let go between uses, the class is not. */
  at_?: (Handle | undefined)[];
}
/** Kaluma's globals this port uses, reached through globalThis: the host's type check of the tests has no Kaluma declarations. */
interface KmGlobals {
  require(id: 'i2c'): { I2C: KmI2cClass };
  digitalRead(pin: number): number;
  analogWrite(pin: number, duty: number, freqHz: number): void;
  noTone(pin: number): void;
}

/** An open bus: data its user keeps between uses (I2cPorts). */
interface Handle {
  n_: number;
  sda_: number;
  scl_: number;
  hz_: number;
  /**
   * Kaluma's I2C while this handle has the bus; undefined once closed or not
   * re-opened. Kaluma keeps no state per object (any object with a `bus`
   * drives that bus), so a handle whose bus was opened again since is no
   * longer the class's at_, and must not touch the bus: its close() would
   * close the new one.
   */
  i_: KmI2c | undefined;
  closed_: boolean;
}

/** Per transfer: the longest, 26 bytes of trimming, takes about 3 ms at 100 kHz. */
const TIMEOUT_MS = 50;

const km = (): KmGlobals => globalThis as unknown as KmGlobals;

/** Closes the bus an object names (an I2C, or { bus }: whoever had it). */
function shut(I2C: KmI2cClass, self: object): void {
  try {
    I2C.prototype.close.call(self);
  } catch {
    // It was not open.
  }
}

/** Opens the handle's bus, closing it first: a second `new I2C` on an open bus throws. */
function start(h: Handle): void {
  const I2C = km().require('i2c').I2C;
  shut(I2C, { bus: h.n_ });
  h.i_ = new I2C(h.n_, { sda: h.sda_, scl: h.scl_, baudrate: h.hz_ });
  (I2C.at_ || (I2C.at_ = []))[h.n_] = h;
}

/** The handle's I2C while it has the bus. */
function mine(h: Handle): KmI2c | undefined {
  const at = km().require('i2c').I2C.at_;
  return h.i_ && at && at[h.n_] === h ? h.i_ : undefined;
}

export const kalumaI2c: I2cPorts = {
  open(bus, sda, scl, hz) {
    const h: Handle = { n_: bus, sda_: sda, scl_: scl, hz_: hz, i_: undefined, closed_: false };
    start(h);
    return h;
  },
  use(handle) {
    const h = handle as Handle;
    const g = km();
    const stuck = (): string | undefined => (!g.digitalRead(h.scl_) ? 'SCL held low' : !g.digitalRead(h.sda_) ? 'SDA held low' : undefined);
    return {
      write(addr, bytes) {
        const c = mine(h);
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
        const c = mine(h);
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
        if (h.closed_ || (h.i_ && !mine(h))) return 'bus closed';
        const was = stuck();
        const I2C = g.require('i2c').I2C;
        if (h.i_) shut(I2C, h.i_);
        // Closed, the I2C block lets go; a chip still holding SDA gets up to 9 clocks.
        const scl = h.scl_;
        let n = 0;
        for (; n < 9 && g.digitalRead(scl) && !g.digitalRead(h.sda_); n++) {
          g.analogWrite(scl, 0, 10000);
          g.analogWrite(scl, 1, 10000);
        }
        if (n) g.noTone(scl);
        try {
          start(h);
        } catch {
          if (I2C.at_) I2C.at_[h.n_] = undefined;
          h.i_ = undefined;
        }
        const now = stuck();
        return (was || 'lines high') + '; ' + n + ' clocks on SCL; ' + (now ? now + ' still' : 'free') + (h.i_ ? '; re-opened' : '; could not re-open');
      },
      close() {
        const c = mine(h);
        if (c) {
          const I2C = g.require('i2c').I2C;
          shut(I2C, c);
          (I2C.at_ as (Handle | undefined)[])[h.n_] = undefined;
        }
        h.i_ = undefined;
        h.closed_ = true;
      },
    };
  },
};
