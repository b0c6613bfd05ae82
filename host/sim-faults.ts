// simFault(bus, addr, fault, on): a console command of npm start only (the
// board has no such thing), to watch the agent meet a failing I2C part: a
// chip unplugged ('nack'), a corrupt CRC, a skipped measurement, a bus held
// low. Bad input answers in one line naming the argument and the rule.
import type { SimFault, SimI2c } from './ports/i2c';

export const SIM_FAULTS: readonly SimFault[] = ['nack', 'corruptCrc', 'skipped', 'holdSda'];

/** Sets or clears the fault; the line to print. */
export function simFault(i2c: SimI2c, bus: unknown, addr: unknown, fault: unknown, on: unknown = true): string {
  if (bus !== 0 && bus !== 1) return 'simFault: bus must be 0 or 1';
  const chips = i2c.chips().filter((c) => c.bus === bus);
  const at = chips.map((c) => '0x' + c.addr.toString(16)).join(', ');
  if (typeof addr !== 'number' || !chips.some((c) => c.addr === addr)) return `simFault: addr must be the address of a simulated chip on bus ${bus} (${at || 'none'})`;
  if (typeof fault !== 'string' || !SIM_FAULTS.includes(fault as SimFault)) return `simFault: fault must be one of ${SIM_FAULTS.join(', ')}`;
  if (typeof on !== 'boolean') return 'simFault: on must be true or false';
  i2c.fault(bus, addr, fault as SimFault, on);
  const chip = chips.find((c) => c.addr === addr);
  return `simulated ${chip ? chip.kind : 'chip'} at 0x${addr.toString(16)} on bus ${bus}: ${fault} ${on ? 'on' : 'off'}`;
}
