// Kaluma 1.2.1's 'i2c' module and the pin globals beside it, as the board
// has them (its module_i2c.c and the RP2040 target's i2c.c and gpio.c, on the
// pico-sdk it links), with the simulated chips (host/ports/i2c-chips.ts) on
// the wires, for code that runs against Kaluma itself (src/ports/kaluma):
// - `new I2C(bus, { sda, scl, baudrate })` throws SystemError -145 on a bus
//   that is open, a bus that is not 0 or 1 and pins the RP2040 target refuses,
//   and sets the object's mode (0), bus, baudrate, sda and scl: all the state
//   an I2C object has (close() deletes bus);
// - write(data, addr, timeout) sends the whole ArrayBuffer behind a typed
//   array (not its view), returns the bytes taken (fewer when a data byte is
//   refused after the address was taken), throws SystemError -147 on a NACK
//   of the address and on a timeout alike; read(length, addr, timeout)
//   throws -146 the same way, and cuts its timeout to 8 bits;
// - a transfer of no bytes returns at once, as done, without touching the bus;
// - close() throws when the bus is not open, and reads nothing but this.bus;
// - a stuck bus (a chip holding SDA) makes every transfer time out;
// - digitalRead() reads a pin whatever block has it; pinMode() and
//   digitalWrite() never take a pin back from the I2C block (recorded in
//   `violations`, as they do nothing on the board); analogWrite() gives the
//   pin to the PWM block, duty 0 and 1 holding it low and high: a rising
//   edge on SCL is a clock for a chip holding SDA.
import { createSimI2c } from '../../../host/ports/i2c';
import type { SimI2c } from '../../../host/ports/i2c';
import { kalumaAcceptsPins } from '../../../host/ports/i2c';
import type { Clock, I2cBus } from '../../../src/ports/ports';

export class SystemError extends Error {
  constructor(readonly errno: number) {
    super(errno === -145 ? 'Device Init/Deinit Error' : errno === -146 ? 'Device Read Error' : 'Device Write Error');
  }
}

export interface KalumaI2c {
  /** Kaluma's module, as require('i2c') gives it. */
  module: { I2C: unknown };
  /** The pin globals: digitalRead, pinMode, digitalWrite, analogWrite, noTone. */
  globals: Record<string, (...a: number[]) => unknown>;
  /** The chips on the wires, and their faults. */
  sim: SimI2c;
  /** Clocks on SCL a chip holding SDA needs before it lets go (default 3). */
  clocksToFree: number;
  /** Every call that reached the module: 'new 0 4 5 100000', 'w 0 76 1 t50', 'r 0 76 8 t50', 'close 0'; and 'scl 0 1' for each level put on an SCL pin. */
  calls: string[];
  /** What would not work on the board. */
  violations: string[];
  /** Whether Kaluma has the bus open. */
  isOpen(bus: number): boolean;
}

export function createKalumaI2c(o: { clock: Clock }): KalumaI2c {
  const sim = createSimI2c({ clock: o.clock });
  /** Kaluma's open buses: their pins. */
  const open: ({ sda: number; scl: number } | undefined)[] = [undefined, undefined];
  /** The wires of each bus once used: a handle on the simulated bus (stuck() reads the chips whether or not it is open). */
  const wires: ({ sda: number; scl: number; sim: I2cBus } | undefined)[] = [undefined, undefined];
  const calls: string[] = [];
  const violations: string[] = [];
  /** The PWM block's level on each pin it has. */
  const pwm = new Map<number, number>();
  /** Pins the I2C block has had (it keeps them after close: nothing gives them back but a soft reset). */
  const i2cPins = new Set<number>();
  let clocks = 0;
  const k: KalumaI2c = { module: { I2C: undefined }, globals: {}, sim, clocksToFree: 3, calls, violations, isOpen: (bus) => open[bus] !== undefined };

  function I2C(this: { bus?: number; mode?: number; baudrate?: number; sda?: number; scl?: number }, bus: number, opts?: { sda?: number; scl?: number; baudrate?: number }): void {
    const sda = opts && opts.sda !== undefined ? opts.sda : bus === 0 ? 4 : 2;
    const scl = opts && opts.scl !== undefined ? opts.scl : bus === 0 ? 5 : 3;
    const hz = Math.min(1000000, opts && opts.baudrate !== undefined ? opts.baudrate : 100000);
    calls.push(`new ${bus} ${sda} ${scl} ${hz}`);
    if ((bus !== 0 && bus !== 1) || open[bus] || !kalumaAcceptsPins(bus, sda, scl)) throw new SystemError(-145);
    open[bus] = { sda, scl };
    wires[bus] = { sda, scl, sim: sim.open(bus, sda, scl, hz) };
    for (const pin of [sda, scl]) {
      i2cPins.add(pin);
      pwm.delete(pin);
    }
    this.mode = 0;
    this.bus = bus;
    this.baudrate = opts && opts.baudrate !== undefined ? opts.baudrate : 100000;
    this.sda = sda;
    this.scl = scl;
  }
  const busOf = (self: { bus?: unknown }, errno: number): I2cBus => {
    if (typeof self.bus !== 'number') throw new ReferenceError('I2C bus is not initialized.');
    if (!open[self.bus]) throw new SystemError(errno);
    return wires[self.bus]!.sim;
  };
  I2C.prototype.write = function (this: { bus?: number }, data: unknown, addr: number, timeout = 5000): number {
    const bus = busOf(this, -147);
    if (!(data instanceof Uint8Array) && typeof data !== 'string') throw new TypeError('The data argument must be Uint8Array or string.');
    const bytes = typeof data === 'string' ? [...data].map((c) => c.charCodeAt(0) & 0x7f) : [...new Uint8Array(data.buffer)];
    calls.push(`w ${this.bus} ${addr.toString(16)} ${bytes.length} t${timeout}`);
    if (!bytes.length) return 0;
    const r = bus.write(addr, bytes);
    if (r === undefined) return bytes.length;
    const short = /^took (\d+) of/.exec(r);
    if (short) return Number(short[1]);
    throw new SystemError(-147);
  };
  I2C.prototype.read = function (this: { bus?: number }, length: number, addr: number, timeout = 5000): Uint8Array {
    const bus = busOf(this, -146);
    calls.push(`r ${this.bus} ${addr.toString(16)} ${length} t${timeout & 0xff}`);
    if (!length) return new Uint8Array(0);
    const r = bus.read(addr, length);
    if (typeof r === 'string') throw new SystemError(-146);
    return r;
  };
  I2C.prototype.close = function (this: { bus?: number }): void {
    if (typeof this.bus !== 'number') throw new ReferenceError('I2C bus is not initialized.');
    const bus = this.bus;
    if (!open[bus]) throw new SystemError(-145);
    calls.push(`close ${bus}`);
    wires[bus]!.sim.close();
    open[bus] = undefined;
    delete this.bus;
  };
  k.module.I2C = I2C;

  const sdaHeld = (pin: number): boolean => wires.some((w) => w !== undefined && w.sda === pin && w.sim.stuck() !== undefined);
  k.globals = {
    digitalRead: (pin: number) => {
      const level = pwm.get(pin);
      if (level !== undefined) return level;
      return sdaHeld(pin) ? 0 : 1;
    },
    pinMode: (pin: number) => {
      if (i2cPins.has(pin) || pwm.has(pin)) violations.push(`pinMode(${pin}): the pin stays with its block`);
    },
    digitalWrite: (pin: number) => {
      if (i2cPins.has(pin) || pwm.has(pin)) violations.push(`digitalWrite(${pin}): the pin stays with its block`);
    },
    analogWrite: (pin: number, duty: number) => {
      const level = duty >= 1 ? 1 : 0;
      const was = pwm.get(pin);
      pwm.set(pin, level);
      const bus = wires.findIndex((w) => w !== undefined && w.scl === pin);
      if (bus < 0) return;
      calls.push(`scl ${bus} ${level}`);
      if (open[bus]) violations.push(`analogWrite(${pin}): SCL driven while the I2C block has the bus`);
      const w = wires[bus]!;
      // A rising edge with SCL low before (the pin's idle level is high): a clock.
      if (!(was === 0 && level === 1) || !w.sim.stuck()) return;
      if (++clocks < k.clocksToFree) return;
      clocks = 0;
      // Clocked free: the simulated bus lets go of SDA when it is recovered; Kaluma's bus stays as it was.
      w.sim.recover();
      if (!open[bus]) w.sim.close();
    },
    noTone: (pin: number) => void pwm.has(pin),
  };
  return k;
}
