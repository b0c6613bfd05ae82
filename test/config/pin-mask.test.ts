// A device's PIN is a credential (with the API key it reads and writes the
// device's data): config() and help() show whether one is set, never its
// digits. The GPIO numbers of sensors and outputs are not PINs and show.
import { describe, expect, it } from 'vitest';
import { changeLines, describeConfig, helpLines } from '../../src/config/describe';
import type { AgentConfig } from '../../src/config/types';
import { fresh, said } from '../console/helpers';
import { testConfig } from '../fakes/config';
import { DEAD_URL } from '../runtime/harness';

// Digits found nowhere else in the config or its output.
const PINS = { tv: 48213, tj: 70519, tx: 93377, health: 61842, source: 55120 };

function withPins(): AgentConfig {
  const c = testConfig(DEAD_URL);
  c.devices[0]!.devicePin = PINS.tv;
  c.devices[1]!.devicePin = PINS.tj;
  c.devices[2]!.devicePin = PINS.tx;
  c.health = { id: 9, pin: PINS.health, intervalMs: 900000 };
  c.outputs = [{ name: 'vent', kind: 'digital', pin: 16, sourceId: 7, sourcePin: PINS.source, field: '', pollMs: 60000, safe: 0, failsafeMs: 600000, invert: false }];
  return c;
}

const noPin = (text: string): void => {
  for (const p of Object.values(PINS)) expect(text).not.toContain(String(p));
};

describe('PINs in config()', () => {
  it('shows device.*.pin, health.pin and output.*.sourcePin as ***, the GPIO numbers in clear', () => {
    const { b } = fresh(withPins());
    const lines = said(b, () => b.cmd.config!());
    expect(lines).toEqual(expect.arrayContaining(['device.tv.pin = ***', 'device.tj.pin = ***', 'device.tx.pin = ***', 'health.pin = ***', 'output.vent.sourcePin = ***']));
    expect(lines).toEqual(expect.arrayContaining(['sensor.door.pin = 15', 'sensor.light.pin = 26', 'output.vent.pin = 16', 'output.vent.sourceId = 7', 'health.id = 9']));
    noPin(lines.join('\n'));
    b.rt.stop();
  });

  it('shows an unchanged health.pin (0: no health device) as (unset), as an unset API key', () => {
    const lines = describeConfig(testConfig(DEAD_URL));
    expect(lines).toContain('health.pin = (unset)');
    expect(lines).toContain('device.tv.pin = ***');
    expect(lines.join('\n')).not.toMatch(/1111|2222|3333/);
  });

  it("names a changed PIN in save()'s preview without its old or new digits", () => {
    const { b } = fresh(withPins());
    expect(said(b, () => b.cmd.set!('device.tv.pin', 31337))).toEqual(['device.tv.pin set; save() to apply']);
    expect(said(b, () => b.cmd.set!('output.vent.sourcePin', 27182))).toEqual(['output.vent.sourcePin set; save() to apply']);
    const lines = said(b, () => b.cmd.config!());
    expect(lines).toContain('  device.tv.pin: *** -> *** (changed)');
    expect(lines).toContain('  output.vent.sourcePin: *** -> *** (changed)');
    noPin(lines.join('\n'));
    expect(lines.join('\n')).not.toMatch(/31337|27182/);
    b.rt.stop();
  });

  it('says when a PIN appears or goes, and a device removed takes its PIN with it unseen', () => {
    const from = withPins();
    const to = withPins();
    to.health = { id: 0, pin: 0, intervalMs: 900000 };
    to.devices = to.devices.slice(1);
    const lines = changeLines(from, to);
    expect(lines).toContain('health.pin: *** -> (unset)');
    expect(lines).toContain('device.tv.pin: *** -> (none)');
    noPin(lines.join('\n'));
  });

  it("help() gives health.pin's default as (unset), not a PIN", () => {
    const help = helpLines().join('\n');
    expect(help).toMatch(/health\.pin +DevicePIN of that device\n {4}must be a whole number from 0 to 2147483647; default \(unset\)/);
  });
});
