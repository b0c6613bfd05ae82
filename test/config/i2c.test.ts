// I2C sensors in the configuration: their bus, pins, clock and address, the
// quantities a device names, and one line per broken rule.
import { describe, expect, it } from 'vitest';
import { configOf, errorsOf } from '../fakes/validate';

const air = { name: 'air', kind: 'bme280' };
const dev = (format: string, sensors: string[]) => ({ name: 'd', deviceId: 7, devicePin: 1, format, sensors });

describe('I2C sensors', () => {
  it('fill the bus defaults: bus 0 on GP4/GP5 at 100 kHz, the part usual address; what readers take when absent is left out', () => {
    const c = configOf({ sensors: [air, { name: 'leaf', kind: 'sht4x' }, { name: 'light', kind: 'bh1750', bus: 1, freqHz: 400000 }] });
    // Bus 0, SCL (the GPIO above SDA) and 100 kHz are not kept: each key is heap while the agent runs.
    expect(c.sensors[0]).toEqual({ name: 'air', kind: 'bme280', intervalMs: 60000, sda: 4, address: 0x76 });
    expect(c.sensors[1]).toEqual({ name: 'leaf', kind: 'sht4x', intervalMs: 60000, sda: 4, address: 0x44 });
    expect(c.sensors[2]).toMatchObject({ bus: 1, sda: 2, freqHz: 400000, address: 0x23 });
    expect(c.sensors[2]).not.toHaveProperty('scl');
    // Checked again (a change on trial, a document merged over it), it is the same.
    expect(configOf(c)).toEqual(c);
    expect(c.sensors[2]).not.toHaveProperty('pin');
    expect(c.sensors[2]).not.toHaveProperty('unit');
  });

  it('take per-quantity calibration and filters', () => {
    const c = configOf({ sensors: [{ ...air, humidityOffset: -2.5, pressureFilters: 'median:5' }] });
    expect(c.sensors[0]).toMatchObject({ humidityOffset: -2.5, pressureFilters: [{ type: 'median', window: 5 }] });
  });

  it.each([
    [{ ...air, pin: 4 }, 'sensor.air.pin: only for kind digital, analog, temperature, counter'],
    [{ ...air, illuminanceOffset: 1 }, 'sensor.air.illuminanceOffset: only for kind bh1750'],
    [{ ...air, address: 0x44 }, 'sensor.air.address: a bme280 answers at 0x76 or 0x77 (got 0x44)'],
    [{ ...air, address: 200 }, 'sensor.air.address: must be a whole number from 8 to 119'],
    [{ ...air, bus: 2 }, 'sensor.air.bus: must be a whole number from 0 to 1'],
    [{ ...air, sda: 6 }, 'sensor.air.sda: bus 0 can have its SDA on GP4, GP0, GP8, GP12, GP16, GP20'],
    [{ ...air, bus: 1, sda: 4 }, 'sensor.air.sda: bus 1 can have its SDA on GP2, GP6, GP10, GP14, GP18, GP26'],
    [{ ...air, sda: 8, scl: 10 }, 'sensor.air.scl: must be GP9, the pin above SDA GP8 on bus 0'],
    [{ ...air, freqHz: 1000000 }, 'sensor.air.freqHz: must be a whole number from 10000 to 400000'],
    [{ ...air, humidityFilters: 'median:0' }, 'sensor.air.humidityFilters: median window must be a whole number from 1 to 32'],
  ])('%j is refused: %s', (s, line) => {
    expect(errorsOf({ sensors: [s] })).toEqual([line]);
  });

  it('share a bus: the same pins and clock, different addresses', () => {
    expect(errorsOf({ sensors: [air, { name: 'leaf', kind: 'sht4x', address: 0x44 }] })).toEqual([]);
    expect(errorsOf({ sensors: [air, { name: 'b', kind: 'bme280' }] })).toEqual(["sensor.b.address: 0x76 on bus 0 is already sensor air's"]);
    expect(errorsOf({ sensors: [air, { name: 'leaf', kind: 'sht4x', sda: 8, scl: 9 }] })).toEqual([
      'sensor.leaf.sda: bus 0 has sda 4 (sensor air); every part on a bus shares it',
      'sensor.leaf.scl: bus 0 has scl 5 (sensor air); every part on a bus shares it',
    ]);
    expect(errorsOf({ sensors: [air, { name: 'leaf', kind: 'sht4x', freqHz: 400000 }] })).toEqual([
      'sensor.leaf.freqHz: bus 0 has freqHz 100000 (sensor air); every part on a bus shares it',
    ]);
    // The same address on the other bus is another part.
    expect(errorsOf({ sensors: [air, { name: 'b', kind: 'bme280', bus: 1 }] })).toEqual([]);
  });

  it('keep their pins: no other sensor or output may use a bus pin', () => {
    expect(errorsOf({ sensors: [air, { name: 'door', kind: 'digital', pin: 5 }] })).toEqual([
      'sensor.door.pin: pin 5 is already used by sensor air (I2C bus 0 SCL)',
    ]);
    expect(errorsOf({ sensors: [{ name: 'door', kind: 'digital', pin: 4 }, air] })).toEqual([
      'sensor.air.sda: pin 4 is already used by sensor door',
    ]);
  });

  it('give devices one reading per quantity; a quantity is named name.quantity', () => {
    const sensors = [air, { name: 'door', kind: 'digital', pin: 6 }];
    expect(errorsOf({ sensors, devices: [dev('JSON', ['air', 'door'])] })).toEqual([]);
    expect(errorsOf({ sensors, devices: [dev('Value', ['air.humidity'])] })).toEqual([]);
    expect(configOf({ sensors, devices: [dev('XML', ['air.pressure', 'door'])] }).devices[0]?.sensors).toEqual(['air.pressure', 'door']);
    expect(errorsOf({ sensors, devices: [dev('Value', ['air'])] })).toEqual([
      "device.d.sensors: a Value device carries exactly one reading (got 3); name one quantity, e.g. 'air.temperature'",
    ]);
    expect(errorsOf({ sensors, devices: [dev('JSON', ['air.light'])] })).toEqual([
      "device.d.sensors: sensor 'air' (bme280) has no quantity 'light' (temperature, humidity, pressure)",
    ]);
    expect(errorsOf({ sensors, devices: [dev('JSON', ['door.level'])] })).toEqual([
      "device.d.sensors: sensor 'door' has one reading; name it without '.level'",
    ]);
    expect(errorsOf({ sensors, devices: [dev('JSON', ['air', 'air.humidity'])] })).toEqual([
      "device.d.sensors: 'air.humidity' is already in 'air'",
    ]);
    expect(errorsOf({ sensors, devices: [dev('JSON', ['fog.humidity'])] })).toEqual(["device.d.sensors: unknown sensor 'fog'"]);
    expect(errorsOf({ sensors, devices: [dev('JSON', ['air.Humidity'])] })).toEqual([
      "device.d.sensors: 'air.Humidity' is not a sensor name (name, or name.quantity)",
    ]);
  });
});
