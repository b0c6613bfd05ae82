// npm start's simFault(): a simulated I2C part made to fail, with one-line
// errors for bad arguments, and the agent's steps meeting the fault.
import { describe, expect, it } from 'vitest';
import { createSimI2c } from '../../host/ports/i2c';
import { simSht4x } from '../../host/ports/i2c-chips';
import { simFault } from '../../host/sim-faults';
import { createFakeTime } from '../fakes/time';

function rig() {
  const time = createFakeTime();
  const i2c = createSimI2c({ clock: time.clock });
  i2c.attach(0, 0x44, simSht4x({ target: () => ({ tempC: 20, humidity: 50 }) }));
  return { i2c, bus: i2c.open(0, 4, 5, 100000) };
}

describe('simFault', () => {
  it('unplugs a chip and plugs it in again', () => {
    const { i2c, bus } = rig();
    expect(simFault(i2c, 0, 0x44, 'nack')).toBe('simulated sht4x at 0x44 on bus 0: nack on');
    expect(bus.write(0x44, [0xfd])).toBe('no answer');
    expect(simFault(i2c, 0, 0x44, 'nack', false)).toBe('simulated sht4x at 0x44 on bus 0: nack off');
    expect(bus.write(0x44, [0xfd])).toBeUndefined();
  });

  it('holds the bus until it is recovered', () => {
    const { i2c, bus } = rig();
    simFault(i2c, 0, 0x44, 'holdSda');
    expect(bus.stuck()).toBe('SDA held low');
  });

  it.each([
    [[2, 0x44, 'nack'], 'simFault: bus must be 0 or 1'],
    [[0, 0x45, 'nack'], 'simFault: addr must be the address of a simulated chip on bus 0 (0x44)'],
    [[1, 0x44, 'nack'], 'simFault: addr must be the address of a simulated chip on bus 1 (none)'],
    [[0, 0x44, 'melt'], 'simFault: fault must be one of nack, corruptCrc, skipped, holdSda'],
    [[0, 0x44, 'nack', 'yes'], 'simFault: on must be true or false'],
  ])('refuses %j in one line, changing nothing', (args, line) => {
    const { i2c } = rig();
    expect(simFault(i2c, ...(args as [unknown, unknown, unknown, unknown]))).toBe(line);
    expect(i2c.chips()[0]?.faults).toEqual([]);
  });
});
