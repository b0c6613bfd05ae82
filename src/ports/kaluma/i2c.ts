// The board's I2C: Kaluma's 'i2c' module, as cold code: its transfers
// bundled into the I2C sensors' steps (the cold modules 'i2c-go',
// 'i2c-read'), the whole of it into 'i2c-fail' and i2cScan(), loaded with
// them and let go after, so an open bus is a handle of data (Kaluma's own I2C
// object, which holds its pins) and its operations are made at each use.
// What Kaluma 1.2.1 does, absorbed here
// (docs/architecture.md, The ports and the runtime's defects):
// - a NACK and a timeout throw the same error, so both are 'no answer'; a
//   data byte refused after the address was taken is no throw, a short count;
// - read() cuts its timeout to 8 bits (5000 ms is 136): ours stays below 256;
// - a transfer of no bytes reports success without touching the bus;
// - a second `new I2C` on an open bus throws: open() first closes the bus
//   through the class's own close(), which reads only `this.bus`;
// - an I2C object keeps nothing of its own but the properties its
//   constructor sets: the methods read `this.bus` and `this.mode`, and
//   close() deletes `bus`; so the handle is Kaluma's object itself, and a
//   bus opened again gives that handle its `bus` back;
// - pinMode() never takes a pin back from the I2C block, so digitalWrite
//   cannot clock SCL: analogWrite at duty 0 and 1 drives it instead (the pin
//   goes to the PWM block until the bus is opened again); digitalRead reads
//   a pin whatever block has it.
import type { I2cBus, I2cPorts, I2cTransfers } from '../ports';

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

/**
 * An open bus: Kaluma's I2C object (its constructor set bus, mode,
 * baudrate, sda and scl), with its bus number kept as `n_` (close() deletes
 * `bus`), -1 once closed for good. It has the bus while the class's at_
 * names it and `bus` is set: a handle whose bus was opened again since by
 * another must not touch the bus, since its close() would close the new one.
 */
interface Handle extends KmI2c {
  bus?: number;
  readonly sda: number;
  readonly scl: number;
  readonly baudrate: number;
  n_: number;
}

/** Per transfer: the longest, 26 bytes of trimming, takes about 3 ms at 100 kHz. */
const TIMEOUT_MS = 50;

const km = (): KmGlobals => globalThis as unknown as KmGlobals;
const cls = (): KmI2cClass => km().require('i2c').I2C;

/** Closes the bus an object names (an I2C, or { bus }: whoever had it). */
function shut(I2C: KmI2cClass, self: object): void {
  try {
    I2C.prototype.close.call(self);
  } catch {
    // It was not open.
  }
}

/** Opens bus `n` for `h` (a new handle when undefined), closing it first: a second `new I2C` on an open bus throws. */
function start(n: number, sda: number, scl: number, hz: number, h?: Handle): Handle {
  const I2C = cls();
  shut(I2C, { bus: n });
  const made = new I2C(n, { sda, scl, baudrate: hz }) as Handle;
  const mine = h || made;
  mine.bus = n;
  mine.n_ = n;
  (I2C.at_ || (I2C.at_ = []))[n] = mine;
  return mine;
}

/** Whether the handle has the bus. */
const mine = (h: Handle): boolean => {
  const at = cls().at_;
  return h.bus !== undefined && !!at && at[h.n_] === h;
};

/** Opens a bus: its handle (I2cPorts.open). */
export const kalumaOpen = (bus: number, sda: number, scl: number, hz: number): object => start(bus, sda, scl, hz);

/** The handle's transfers: what a sample's steps use. */
export function kalumaTransfers(handle: object): I2cTransfers {
  const h = handle as Handle;
  return {
    write(addr, bytes) {
      if (!mine(h)) return 'bus closed';
      if (!bytes.length) return 'no bytes';
      try {
        const n = h.write(new Uint8Array(bytes), addr, TIMEOUT_MS);
        return n === bytes.length ? undefined : 'took ' + n + ' of ' + bytes.length + ' bytes';
      } catch {
        return 'no answer';
      }
    },
    read(addr, length) {
      if (!mine(h)) return 'bus closed';
      if (length < 1) return 'no bytes';
      try {
        return h.read(length, addr, TIMEOUT_MS);
      } catch {
        return 'no answer';
      }
    },
  };
}

/** All of a bus's operations: a failure's, a scan's. */
function use(handle: object): I2cBus {
  const h = handle as Handle;
  const g = km();
  const t = kalumaTransfers(h);
  const stuck = (): string | undefined => (!g.digitalRead(h.scl) ? 'SCL held low' : !g.digitalRead(h.sda) ? 'SDA held low' : undefined);
  return {
    write: t.write,
    read: t.read,
    stuck,
    recover() {
      const at = cls().at_;
      const other = at && at[h.n_];
      if (h.n_ < 0 || (other && other !== h)) return 'bus closed';
      const was = stuck();
      if (h.bus !== undefined) shut(cls(), h);
      // Closed, the I2C block lets go; a chip still holding SDA gets up to 9 clocks.
      const scl = h.scl;
      let n = 0;
      for (; n < 9 && g.digitalRead(scl) && !g.digitalRead(h.sda); n++) {
        g.analogWrite(scl, 0, 10000);
        g.analogWrite(scl, 1, 10000);
      }
      if (n) g.noTone(scl);
      try {
        start(h.n_, h.sda, scl, h.baudrate, h);
      } catch {
        if (at) at[h.n_] = undefined;
        delete h.bus;
      }
      const now = stuck();
      return (was || 'lines high') + '; ' + n + ' clocks on SCL; ' + (now ? now + ' still' : 'free') + (h.bus !== undefined ? '; re-opened' : '; could not re-open');
    },
    close() {
      if (mine(h)) {
        const I2C = cls();
        shut(I2C, h);
        (I2C.at_ as (Handle | undefined)[])[h.n_] = undefined;
      }
      delete h.bus;
      h.n_ = -1;
    },
  };
}

/** The whole port: a failure's code and a scan's. */
export const kalumaI2c: I2cPorts = { open: kalumaOpen, use };
