// A fake I2C bus with register-level fakes of the chips the drivers talk to,
// each able to fail the way a real one does: a NACK (unplugged, wrong
// address, busy), a short answer, a corrupt CRC byte, a BME280's unmeasured
// 0x80000. The chips' layouts are written here from the datasheets, apart
// from the drivers, so a driver that reads a register wrongly fails a test.
import type { I2cBus } from '../../../src/ports/ports';
import type { Driver } from '../../../src/sensors/i2c/driver';

export interface FakeChip {
  write(bytes: number[]): string | undefined;
  read(length: number): Uint8Array | string;
}

/** What a test makes a chip do wrong; each hook gets the transfer, and a string it returns is the bus's failure. */
export interface Faults {
  /** Every transfer is NACKed ('no answer'). */
  nack?: boolean;
  onWrite?: (bytes: number[]) => string | undefined;
  /** A string fails the read; a number answers that many bytes. `at`: the register (BME280) or the last command's first byte. */
  onRead?: (at: number, length: number) => string | number | undefined;
}

export interface FakeBus extends I2cBus {
  chips: Record<number, FakeChip & { faults: Faults }>;
  /** Every transfer: 'w 76 f4 25', 'r 76 8'. */
  log: string[];
}

const hex = (n: number): string => (n < 16 ? '0' : '') + n.toString(16);

export function fakeBus(chips: Record<number, FakeChip & { faults: Faults }>): FakeBus {
  const bus: FakeBus = {
    chips,
    log: [],
    write(addr, bytes) {
      bus.log.push('w ' + hex(addr) + ' ' + bytes.map(hex).join(' '));
      const c = bus.chips[addr];
      if (!c || c.faults.nack) return 'no answer';
      return (c.faults.onWrite && c.faults.onWrite(bytes)) || c.write(bytes);
    },
    read(addr, length) {
      bus.log.push('r ' + hex(addr) + ' ' + length);
      const c = bus.chips[addr];
      if (!c || c.faults.nack) return 'no answer';
      return c.read(length);
    },
    stuck: () => undefined,
    recover: () => 'bus free',
    close: () => undefined,
  };
  return bus;
}

/** Applies a chip's onRead fault to an answer it would give. */
function answer(f: Faults, at: number, bytes: Uint8Array): Uint8Array | string {
  const r = f.onRead && f.onRead(at, bytes.length);
  if (typeof r === 'string') return r;
  return typeof r === 'number' ? bytes.slice(0, r) : bytes;
}

/** The trimming parameters, named as the datasheet does (dig_T1 is t1). */
export interface Bme280Trim {
  t1: number; t2: number; t3: number;
  p1: number; p2: number; p3: number; p4: number; p5: number; p6: number; p7: number; p8: number; p9: number;
  h1: number; h2: number; h3: number; h4: number; h5: number; h6: number;
}

export interface FakeBme280 extends FakeChip {
  faults: Faults;
  /** The register file (0x00..0xFF). */
  regs: Uint8Array;
  /** What the next forced conversion measures: 20-bit temperature and pressure, 16-bit humidity. */
  adc: { t: number; p: number; h: number };
  conversions: number;
  /** Power lost and back: settings and data registers at their reset values; trimming and id stay. */
  powerCycle(): void;
}

/** A BME280 (id 0x60), or a BMP280 with id 0x58 (no humidity registers), or another chip by its id. */
export function fakeBme280(o: { id?: number; trim?: Bme280Trim; adc?: { t: number; p: number; h: number } }): FakeBme280 {
  const regs = new Uint8Array(256);
  const hasHumidity = (o.id ?? 0x60) === 0x60;
  let at = 0;
  let humLatched = 0;
  const reset = (): void => {
    regs.fill(0, 0xf2, 0xf6);
    // Data registers after a reset: 0x80000 for T and P, 0x8000 for H.
    regs.set([0x80, 0, 0, 0x80, 0, 0, 0x80, 0], 0xf7);
    if (!hasHumidity) regs.fill(0, 0xfd, 0xff);
    humLatched = 0;
  };
  const dev: FakeBme280 = {
    faults: {},
    regs,
    adc: o.adc ?? { t: 519888, p: 415148, h: 30000 },
    conversions: 0,
    powerCycle: reset,
    write(bytes) {
      at = bytes[0]!;
      for (let i = 0; i + 1 < bytes.length; i += 2) {
        const reg = bytes[i]!;
        const v = bytes[i + 1]!;
        if (reg === 0xf2 && !hasHumidity) continue;
        regs[reg] = v;
        // ctrl_hum takes effect with the next write of ctrl_meas (datasheet 5.4.3).
        if (reg === 0xf4) {
          humLatched = regs[0xf2]! & 7;
          if ((v & 3) === 1 || (v & 3) === 2) convert(v);
        }
      }
      return undefined;
    },
    read(length) {
      const out = regs.slice(at, at + length);
      const from = at;
      at += length;
      return answer(dev.faults, from, out);
    },
  };
  // A forced conversion: an oversampling of 0 skips that quantity (raw 0x80000 / 0x8000); back to sleep after.
  function convert(ctrl: number): void {
    dev.conversions++;
    const t = ctrl >> 5 ? dev.adc.t : 0x80000;
    const p = (ctrl >> 2) & 7 ? dev.adc.p : 0x80000;
    regs.set([p >> 12, (p >> 4) & 0xff, (p & 15) << 4, t >> 12, (t >> 4) & 0xff, (t & 15) << 4], 0xf7);
    if (hasHumidity) {
      const h = humLatched ? dev.adc.h : 0x8000;
      regs.set([h >> 8, h & 0xff], 0xfd);
    }
    regs[0xf4] = ctrl & 0xfc;
  }
  regs[0xd0] = o.id ?? 0x60;
  if (o.trim) setBme280Trim(regs, o.trim);
  reset();
  return dev;
}

/** Lays the trimming out as the datasheet's table "Compensation parameter storage" does. */
export function setBme280Trim(regs: Uint8Array, k: Bme280Trim): void {
  const words = [k.t1, k.t2, k.t3, k.p1, k.p2, k.p3, k.p4, k.p5, k.p6, k.p7, k.p8, k.p9];
  words.forEach((w, i) => regs.set([w & 0xff, (w >> 8) & 0xff], 0x88 + 2 * i));
  regs[0xa1] = k.h1;
  regs.set([k.h2 & 0xff, (k.h2 >> 8) & 0xff, k.h3, (k.h4 >> 4) & 0xff, (k.h4 & 15) | ((k.h5 & 15) << 4), (k.h5 >> 4) & 0xff, k.h6 & 0xff], 0xe1);
}

/** CRC-8 as the Sensirion datasheets give it (poly 0x31, init 0xFF), written apart from the driver's. */
export function sensirionCrc(hi: number, lo: number): number {
  let c = 0xff;
  for (const byte of [hi, lo]) {
    for (let bit = 7; bit >= 0; bit--) {
      const top = ((c >> 7) ^ (byte >> bit)) & 1;
      c = ((c << 1) & 0xff) ^ (top ? 0x31 : 0);
    }
  }
  return c;
}

export interface FakeSht extends FakeChip {
  faults: Faults;
  /** The raw words the next measurement gives. */
  raw: { t: number; rh: number };
  /** Corrupts the CRC byte of that word in the next answers. */
  corrupt: 't' | 'rh' | undefined;
  measurements: number;
}

/** An SHT3x (command 0x24 0x00) or SHT4x (0xFD): unknown commands are NACKed, and so is a read with no measurement ready. */
export function fakeSht(model: '3x' | '4x', raw = { t: 0x6666, rh: 0x6666 }): FakeSht {
  const cmd = model === '3x' ? '24 0' : 'fd';
  let ready = false;
  const dev: FakeSht = {
    faults: {},
    raw,
    corrupt: undefined,
    measurements: 0,
    write(bytes) {
      if (bytes.map((b) => b.toString(16)).join(' ') !== cmd) return 'no answer';
      ready = true;
      dev.measurements++;
      return undefined;
    },
    read(length) {
      if (!ready) return 'no answer';
      ready = false;
      const { t, rh } = dev.raw;
      const out = new Uint8Array([t >> 8, t & 0xff, sensirionCrc(t >> 8, t & 0xff), rh >> 8, rh & 0xff, sensirionCrc(rh >> 8, rh & 0xff)]);
      if (dev.corrupt) out[dev.corrupt === 't' ? 2 : 5]! ^= 0x01;
      return answer(dev.faults, model === '3x' ? 0x24 : 0xfd, out.slice(0, length));
    },
  };
  return dev;
}

export interface FakeBh1750 extends FakeChip {
  faults: Faults;
  /** The count the next measurement gives. */
  count: number;
  powered: boolean;
  measurements: number;
}

/**
 * A BH1750: 0x01 powers it on, 0x20 measures once (only when powered) and
 * powers it down again; a read gives the last result, high byte first.
 */
export function fakeBh1750(count = 0x8390): FakeBh1750 {
  let result = 0;
  const dev: FakeBh1750 = {
    faults: {},
    count,
    powered: false,
    measurements: 0,
    write(bytes) {
      if (bytes.length !== 1) return 'no answer';
      const op = bytes[0];
      if (op === 0x01) dev.powered = true;
      else if (op === 0x00) dev.powered = false;
      else if (op === 0x20 && dev.powered) {
        result = dev.count;
        dev.powered = false;
        dev.measurements++;
      }
      return undefined;
    },
    read(length) {
      return answer(dev.faults, 0x20, new Uint8Array([result >> 8, result & 0xff]).slice(0, length));
    },
  };
  return dev;
}

/** A readied chip as the tests drive it: the driver's three steps over one bus and address, its state kept here as the glue keeps it. */
export interface Chip {
  note_?: string;
  state_: number[];
  start_(): number | string;
  read_(): number[] | string;
}

/** The driver's init_ on `bus` at `addr`: the chip to step, or why it could not be readied. */
export function chipOf(d: Driver, bus: I2cBus, addr: number): Chip | string {
  let note: string | undefined;
  const st = d.init_(bus, addr, (what) => (note = what));
  if (typeof st === 'string') return st;
  return { note_: note, state_: st, start_: () => d.start_(bus, addr, st), read_: () => d.read_(bus, addr, st) };
}

/** The driver readied on `dev` alone on a fake bus at `addr` (throws when it cannot be), and that bus. */
export function readyOn(d: Driver, dev: FakeChip & { faults: Faults }, addr: number): { chip: Chip; bus: FakeBus } {
  const bus = fakeBus({ [addr]: dev });
  const chip = chipOf(d, bus, addr);
  if (typeof chip === 'string') throw new Error(chip);
  return { chip, bus };
}

/** One sample as the glue takes it: started, then read (the wait is the test's). */
export function sampleOf(chip: Chip): number[] | string {
  const s = chip.start_();
  return typeof s === 'string' ? s : chip.read_();
}
