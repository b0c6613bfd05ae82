// Simulated I2C buses behind the I2cPorts port: bus 0 and 1, chips at 7-bit
// addresses (host/ports/i2c-chips.ts), and the faults a real bus has, set per
// chip: 'nack' (unplugged: its address is not acknowledged; clearing it plugs
// the chip in again, as after power-up), 'corruptCrc' (a wrong CRC in what it
// sends), 'skipped' (a BME280's "measurement skipped" values) and 'holdSda'
// (it holds SDA low: every transfer on its bus fails and stuck() says so
// until recover() clocks it free).
//
// It answers as the board's port does (src/ports/kaluma/i2c.ts), defects
// absorbed the same way: a NACK, a chip busy converting and a stuck bus are
// all 'no answer' (Kaluma cannot tell them apart), a data byte refused after
// the address was taken is a short count, an empty transfer is refused
// (Kaluma would report it done without touching the bus), open() rejects
// the pins Kaluma rejects and closes a bus that is open already.
import type { Clock, I2cBus, I2cPorts } from '../../src/ports/ports';

export type SimFault = 'nack' | 'corruptCrc' | 'skipped' | 'holdSda';

/** What a chip reads of its faults while it answers. */
export type SimFaults = Record<SimFault, boolean>;

/** One chip on a simulated bus. `now` is the bus's clock (ms), for conversions that take time. */
export interface SimChip {
  /** The bytes acknowledged of those written (fewer: it refused the next), or undefined: its address was not acknowledged. */
  write(bytes: number[], now: number): number | undefined;
  /** The bytes read, or undefined: its address was not acknowledged (no data yet, a conversion under way). */
  read(length: number, now: number): Uint8Array | undefined;
  /** Back to its state after power-up. */
  reset(): void;
  /** What it is ('bme280'), and what its last conversion measured (by quantity), for a person watching the simulated board. */
  kind: string;
  last(): Record<string, number> | undefined;
}

/** One chip as a person watching the simulated board sees it (the dashboard's panel, the console). */
export interface SimChipRow {
  bus: number;
  addr: number;
  kind: string;
  /** The faults set on it now. */
  faults: SimFault[];
  /** What its last conversion measured, by quantity; undefined before the first. */
  last: Record<string, number> | undefined;
}

export interface SimI2c extends I2cPorts {
  /** A bus's handle is its operations (the host's code is never let go). */
  open(bus: number, sda: number, scl: number, hz: number): I2cBus;
  /** Puts a chip at an address of bus 0 or 1 (plugged in: it answers from now on). Its faults are for it to read. */
  attach(bus: number, addr: number, make: (faults: SimFaults) => SimChip): SimChip;
  /** Sets (or clears) a fault of the chip at bus/addr. Clearing 'nack' plugs it in again: it starts as after power-up. */
  fault(bus: number, addr: number, f: SimFault, on?: boolean): void;
  /** Transfers tried so far (reads and writes), whatever their outcome. */
  transfers(): number;
  /** Every chip, by bus and address. */
  chips(): SimChipRow[];
}

interface Slot {
  chip: SimChip;
  faults: SimFaults;
}

/** Whether Kaluma 1.2.1 takes these pins for the bus (targets/rp2/src/i2c.c): SDA at 4k (bus 0) or 4k+2 (bus 1), SCL at 4k+1 or 4k+3, each checked alone; bus 0 up to GP21, bus 1 also GP26/27. */
export function kalumaAcceptsPins(bus: number, sda: number, scl: number): boolean {
  if (bus !== 0 && bus !== 1) return false;
  const ok = (pin: number, rest: number): boolean => Number.isInteger(pin) && pin >= 0 && pin % 4 === rest && (bus === 0 ? pin <= 21 : pin <= 21 || (pin >= 26 && pin <= 27));
  return ok(sda, bus * 2) && ok(scl, bus * 2 + 1);
}

/** Clocks a chip holding SDA needs before it lets go (it was part-way through a byte). */
const CLOCKS_TO_FREE = 3;

export function createSimI2c(o: { clock: Clock }): SimI2c {
  const chips: Map<number, Slot>[] = [new Map(), new Map()];
  /** The handle each bus is open through, if any. */
  const open: (object | undefined)[] = [undefined, undefined];
  let count = 0;
  const held = (bus: number): boolean => [...chips[bus]!.values()].some((s) => s.faults.holdSda);
  const stuckText = (bus: number): string | undefined => (held(bus) ? 'SDA held low' : undefined);
  const slotAt = (bus: number, addr: number): Slot | undefined => {
    const s = chips[bus]?.get(addr);
    return s && !s.faults.nack ? s : undefined;
  };

  const openBus = (bus: number, sda: number, scl: number, hz: number): I2cBus => {
    if (!kalumaAcceptsPins(bus, sda, scl)) throw new Error(`I2C bus ${bus} cannot use SDA ${sda} / SCL ${scl}`);
    if (!(hz > 0)) throw new Error(`I2C bus ${bus}: ${hz} Hz is no frequency`);
    const me = {};
    open[bus] = me;
    const live = (): boolean => open[bus] === me;
    return {
      write(addr, bytes) {
        if (!live()) return 'bus closed';
        if (!bytes.length) return 'no bytes';
        count++;
        const s = held(bus) ? undefined : slotAt(bus, addr);
        const n = s ? s.chip.write(bytes.slice(), o.clock.uptimeMs()) : undefined;
        if (n === undefined) return 'no answer';
        return n === bytes.length ? undefined : `took ${n} of ${bytes.length} bytes`;
      },
      read(addr, length) {
        if (!live()) return 'bus closed';
        if (length < 1) return 'no bytes';
        count++;
        const s = held(bus) ? undefined : slotAt(bus, addr);
        return (s && s.chip.read(length, o.clock.uptimeMs())) || 'no answer';
      },
      stuck: () => stuckText(bus),
      recover() {
        const was = stuckText(bus);
        // Clocking SCL frees a chip that holds SDA part-way through a byte; the bus is opened again.
        let clocks = 0;
        if (was) {
          for (const s of chips[bus]!.values()) s.faults.holdSda = false;
          clocks = CLOCKS_TO_FREE;
        }
        open[bus] = me;
        return recoveryText(was, clocks, stuckText(bus));
      },
      close() {
        if (live()) open[bus] = undefined;
      },
    };
  };

  return {
    // The handle is the bus's operations themselves: the host's code stays loaded.
    open: openBus,
    use: (h) => h as I2cBus,
    attach(bus, addr, make) {
      const faults: SimFaults = { nack: false, corruptCrc: false, skipped: false, holdSda: false };
      const chip = make(faults);
      chips[bus]!.set(addr, { chip, faults });
      return chip;
    },
    fault(bus, addr, f, on = true) {
      const s = chips[bus]?.get(addr);
      if (!s) throw new Error(`no chip at 0x${addr.toString(16)} on bus ${bus}`);
      // Plugged in again: powered up afresh.
      if (f === 'nack' && s.faults.nack && !on) s.chip.reset();
      s.faults[f] = on;
    },
    transfers: () => count,
    chips: () =>
      chips.flatMap((m, bus) =>
        [...m.entries()]
          .sort((a, b) => a[0] - b[0])
          .map(([addr, s]) => ({ bus, addr, kind: s.chip.kind, faults: (Object.keys(s.faults) as SimFault[]).filter((f) => s.faults[f]), last: s.chip.last() })),
      ),
  };
}

/** What recover() says, on the board and here: what it found, the clocks it gave, what is left. */
export function recoveryText(was: string | undefined, clocks: number, now: string | undefined): string {
  return `${was || 'lines high'}; ${clocks} clocks on SCL; ${now ? now + ' still' : 'free'}; re-opened`;
}
