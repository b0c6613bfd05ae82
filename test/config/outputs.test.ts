// output.<name>: validation, the editor, the saved form, config() and help('keys').
import { describe, expect, it } from 'vitest';
import { describeConfig, helpLines } from '../../src/config/describe';
import { createConfigEditor } from '../../src/config/edit';
import { toSaved } from '../../src/config/saved';
import { configOf, errorsOf } from '../fakes/validate';

type Obj = Record<string, unknown>;

// A sensor on pin 15, a device the board writes (id 2) and a health device (id 12).
const rest = (): Obj => ({
  sensors: [{ name: 'door', kind: 'digital', pin: 15 }],
  devices: [{ name: 'tj', deviceId: 2, devicePin: 99, format: 'Value', sensors: ['door'] }],
  health: { id: 12, pin: 34 },
});
const vent = (o: Obj = {}): Obj => ({ name: 'vent', kind: 'digital', pin: 16, sourceId: 7, sourcePin: 1234, ...o });
const withOutputs = (...outputs: Obj[]): Obj => ({ ...rest(), outputs });

describe('output entries', () => {
  it('fills the digital defaults', () => {
    expect(configOf(withOutputs(vent())).outputs).toEqual([
      { name: 'vent', kind: 'digital', pin: 16, sourceId: 7, sourcePin: 1234, field: '', pollMs: 60000, safe: 0, failsafeMs: 600000, invert: false },
    ]);
  });

  it('fills the pwm defaults', () => {
    const fan = { name: 'fan', kind: 'pwm', pin: 17, sourceId: 8, sourcePin: 1 };
    expect(configOf(withOutputs(fan)).outputs).toEqual([
      { name: 'fan', kind: 'pwm', pin: 17, sourceId: 8, sourcePin: 1, field: '', pollMs: 60000, safe: 0, failsafeMs: 600000, freqHz: 1000, scale: 1 },
    ]);
  });

  it('keeps what an entry gives, in the order of the schema', () => {
    const fan = { name: 'fan', kind: 'pwm', pin: 17, sourceId: 8, sourcePin: 1, field: 'fans.north', pollMs: 5000, safe: 0.25, failsafeMs: 10000, freqHz: 25000, scale: 100 };
    const got = configOf(withOutputs(vent({ safe: 1, invert: true, field: 'vent' }), fan)).outputs;
    expect(got[0]).toEqual({ name: 'vent', kind: 'digital', pin: 16, sourceId: 7, sourcePin: 1234, field: 'vent', pollMs: 60000, safe: 1, failsafeMs: 600000, invert: true });
    expect(got[1]).toEqual(fan);
    expect(Object.keys(got[1] as object)).toEqual(['name', 'kind', 'pin', 'sourceId', 'sourcePin', 'field', 'pollMs', 'safe', 'failsafeMs', 'freqHz', 'scale']);
  });

  it('is an empty list when the file has none', () => {
    expect(configOf(rest()).outputs).toEqual([]);
    expect(configOf({}).outputs).toEqual([]);
  });

  it('takes a name starting with xml (an output name is no XML element)', () => {
    expect(configOf(withOutputs(vent({ name: 'xmlVent' }))).outputs[0]?.name).toBe('xmlVent');
  });

  it('accepts up to 4 outputs, and a source that drives two of them', () => {
    const four = [16, 17, 18, 19].map((pin, i) => vent({ name: 'o' + i, pin }));
    expect(configOf(withOutputs(...four)).outputs.map((o) => o.pin)).toEqual([16, 17, 18, 19]);
  });
});

describe('output rules', () => {
  it.each([
    [{ pin: 22 }, 'output.vent.pin: pin 22: GP22 is the boot-skip pin; an output that holds it low at power-up stops the program from starting'],
    [{ pin: 30 }, 'output.vent.pin: must be a whole number from 0 to 29'],
    [{ pin: 15 }, 'output.vent.pin: pin 15 is already used by sensor door'],
    [{ safe: 0.5 }, 'output.vent.safe: must be 0 or 1 for kind digital'],
    [{ safe: 2 }, 'output.vent.safe: must be a number from 0 to 1'],
    [{ freqHz: 500 }, 'output.vent.freqHz: only for kind pwm'],
    [{ scale: 100 }, 'output.vent.scale: only for kind pwm'],
    [{ kind: 'pwm', invert: true }, 'output.vent.invert: only for kind digital'],
    [{ kind: 'pwm', freqHz: 9 }, 'output.vent.freqHz: must be a whole number from 10 to 100000'],
    [{ kind: 'pwm', scale: 0 }, 'output.vent.scale: must be a number from 0.000001 to 1000000'],
    [{ sourceId: 2 }, "output.vent.sourceId: id 2 is device tj's, which this board writes; an output reads a control device of its own"],
    [{ sourceId: 12 }, 'output.vent.sourceId: id 12 is health.id, which this board writes; an output reads a control device of its own'],
    [{ sourceId: 0 }, 'output.vent.sourceId: must be a whole number from 1 to 2147483647'],
    [{ sourcePin: -1 }, 'output.vent.sourcePin: must be a whole number from 0 to 2147483647'],
    [{ field: 'a b' }, "output.vent.field: empty for a Value device, or a JSON field like 'vent' or 'vents.north'"],
    [{ field: 'a.b.c.d.e' }, "output.vent.field: empty for a Value device, or a JSON field like 'vent' or 'vents.north'"],
    [{ field: '.a' }, "output.vent.field: empty for a Value device, or a JSON field like 'vent' or 'vents.north'"],
    [{ pollMs: 4999 }, 'output.vent.pollMs: must be a whole number from 5000 to 86400000'],
    [{ failsafeMs: 9999 }, 'output.vent.failsafeMs: must be a whole number from 10000 to 86400000'],
    [{ kind: 'relay' }, 'output.vent.kind: must be one of digital, pwm'],
    [{ kind: undefined }, 'output.vent.kind: required'],
    [{ pin: undefined }, 'output.vent.pin: required'],
    [{ sourceId: undefined }, 'output.vent.sourceId: required'],
    [{ sourcePin: undefined }, 'output.vent.sourcePin: required'],
    [{ colour: 'red' }, 'output.vent.colour: unknown field'],
    [{ unit: 'V' }, 'output.vent.unit: unknown field'],
  ])('%j -> %s', (o, error) => {
    expect(errorsOf(withOutputs(vent(o)))).toEqual([error]);
  });

  it.each(['pico-w', 'pico2-w'])('refuses every Wi-Fi radio pin on %s', (board) => {
    const signals: Record<number, string> = { 23: 'WL_ON', 24: 'WL_D', 25: 'WL_CS', 29: 'WL_CLK' };
    for (const pin of [23, 24, 25, 29]) {
      expect(errorsOf({ ...withOutputs(vent({ pin })), board })).toEqual([
        `output.vent.pin: pin ${pin}: GP${pin} belongs to the Wi-Fi radio (${signals[pin]}) and must never be used`,
      ]);
    }
  });

  it('takes a pwm safe duty between 0 and 1', () => {
    expect(configOf(withOutputs(vent({ kind: 'pwm', safe: 0.5 }))).outputs[0]?.safe).toBe(0.5);
  });

  it('refuses a pin another output holds', () => {
    expect(errorsOf(withOutputs(vent(), vent({ name: 'fan', sourceId: 8 })))).toEqual(['output.fan.pin: pin 16 is already used by output vent']);
  });

  it('keeps the sensors\' own pin messages', () => {
    const raw = { sensors: [{ name: 'a', kind: 'digital', pin: 5 }, { name: 'b', kind: 'counter', pin: 5 }, { name: 'c', kind: 'digital', pin: 22 }] };
    expect(errorsOf(raw)).toEqual([
      'sensor.b.pin: pin 5 is already used by sensor a',
      'sensor.c.pin: pin 22: GP22 is the boot-skip pin; a sensor that holds it low at power-up stops the program from starting',
    ]);
  });

  it('allows at most 4 outputs', () => {
    const five = [16, 17, 18, 19, 20].map((pin, i) => vent({ name: 'o' + i, pin }));
    expect(errorsOf(withOutputs(...five))).toEqual(['outputs: at most 4 outputs (got 5)']);
  });

  it('refuses bad names, a name used twice and what is not a list of objects', () => {
    expect(errorsOf(withOutputs(vent({ name: '9vent' }), vent({ pin: 17 }), vent({ pin: 18 }), 5 as unknown as Obj))).toEqual([
      'outputs[0].name: a name is 1-16 of A-Z a-z 0-9 _ and does not start with a digit',
      'output.vent: defined twice',
      'outputs[3]: must be an object',
    ]);
    expect(errorsOf({ outputs: {} })).toEqual(['outputs: must be a list']);
  });

  it('reports every broken rule of an entry at once, after the devices\'', () => {
    const raw = withOutputs(vent({ pin: 15, safe: 0.5, sourceId: 2, freqHz: 10 }));
    (raw.devices as Obj[])[0]!.batch = 2;
    expect(errorsOf(raw)).toEqual([
      'device.tj.batch: only JSON devices batch samples; use 1',
      'output.vent.freqHz: only for kind pwm',
      'output.vent.pin: pin 15 is already used by sensor door',
      'output.vent.safe: must be 0 or 1 for kind digital',
      "output.vent.sourceId: id 2 is device tj's, which this board writes; an output reads a control device of its own",
    ]);
  });
});

describe('the saved form of outputs', () => {
  const full = (): Obj =>
    withOutputs(vent(), { name: 'fan', kind: 'pwm', pin: 17, sourceId: 8, sourcePin: 1, field: 'fans.north', safe: 0.25, freqHz: 25000, scale: 100 });

  it('holds what differs from the defaults, and gives the same config back', () => {
    const c = configOf(full());
    const saved = toSaved(c);
    expect(saved.outputs).toEqual([
      { name: 'vent', kind: 'digital', pin: 16, sourceId: 7, sourcePin: 1234 },
      { name: 'fan', kind: 'pwm', pin: 17, sourceId: 8, sourcePin: 1, field: 'fans.north', safe: 0.25, freqHz: 25000, scale: 100 },
    ]);
    expect(configOf(JSON.parse(JSON.stringify(saved)))).toEqual(c);
  });

  it('keeps an invert and a safe level set on a digital output', () => {
    const c = configOf(withOutputs(vent({ invert: true, safe: 1, pollMs: 5000, failsafeMs: 10000 })));
    expect(toSaved(c).outputs).toEqual([{ name: 'vent', kind: 'digital', pin: 16, sourceId: 7, sourcePin: 1234, pollMs: 5000, safe: 1, failsafeMs: 10000, invert: true }]);
    expect(configOf(toSaved(c))).toEqual(c);
  });

  it('has no outputs key when there are none', () => {
    expect('outputs' in toSaved(configOf(rest()))).toBe(false);
  });
});

describe('editing outputs', () => {
  const editor = () => createConfigEditor({ current: configOf(rest()) });
  const created = () => {
    const e = editor();
    expect(e.set('output.vent', { kind: 'digital', pin: '16', sourceId: '7', sourcePin: '1234' })).toBeUndefined();
    return e;
  };

  it('creates an output whole, with its defaults, from text', () => {
    const e = created();
    expect(e.pending().outputs).toEqual([
      { name: 'vent', kind: 'digital', pin: 16, sourceId: 7, sourcePin: 1234, field: '', pollMs: 60000, safe: 0, failsafeMs: 600000, invert: false },
    ]);
    expect(e.dirty()).toBe(true);
  });

  it('sets its fields one by one, typed as text', () => {
    const e = created();
    expect(e.set('output.vent.safe', '1')).toBeUndefined();
    expect(e.set('output.vent.invert', 'true')).toBeUndefined();
    expect(e.set('output.vent.field', 'vents.north')).toBeUndefined();
    expect(e.set('output.vent.pollMs', '5000')).toBeUndefined();
    expect(e.pending().outputs[0]).toMatchObject({ safe: 1, invert: true, field: 'vents.north', pollMs: 5000 });
  });

  it('changes the kind, bringing that kind\'s defaults', () => {
    const e = created();
    expect(e.set('output.vent.kind', 'pwm')).toBeUndefined();
    expect(e.pending().outputs[0]).toEqual({ name: 'vent', kind: 'pwm', pin: 16, sourceId: 7, sourcePin: 1234, field: '', pollMs: 60000, safe: 0, failsafeMs: 600000, freqHz: 1000, scale: 1 });
    expect(e.set('output.vent.safe', 0.5)).toBeUndefined();
    expect(e.set('output.vent.kind', 'digital')).toBe('output.vent.safe: must be 0 or 1 for kind digital');
    expect(e.pending().outputs[0]?.kind).toBe('pwm');
  });

  it('replaces a whole output', () => {
    const e = created();
    expect(e.set('output.vent', { kind: 'pwm', pin: 18, sourceId: 9, sourcePin: 3, scale: '255' })).toBeUndefined();
    expect(e.pending().outputs).toEqual([
      { name: 'vent', kind: 'pwm', pin: 18, sourceId: 9, sourcePin: 3, field: '', pollMs: 60000, safe: 0, failsafeMs: 600000, freqHz: 1000, scale: 255 },
    ]);
  });

  it.each([
    ['output.fan.kind', 'digital', "output.fan: no such output; create it with set('output.fan', {kind, pin, sourceId, sourcePin})"],
    ['output.fan.pin', 17, "output.fan: no such output; create it with set('output.fan', {kind, pin, sourceId, sourcePin})"],
    ['output.fan', 'x', "output.fan: give all fields at once, e.g. {kind: 'digital', pin: 16, sourceId: 7, sourcePin: 1234}"],
    ['output.fan', { kind: 'digital', pin: 17, sourceId: 8 }, 'output.fan.sourcePin: required'],
    ['output.fan', { kind: 'digital', pin: 17, sourceId: 8, sourcePin: 1, colour: 1 }, 'output.fan.colour: unknown field'],
    ['output.fan', { kind: 'digital', pin: 22, sourceId: 8, sourcePin: 1 }, 'output.fan.pin: pin 22: GP22 is the boot-skip pin; an output that holds it low at power-up stops the program from starting'],
    ['output.fan', { kind: 'digital', pin: 16, sourceId: 8, sourcePin: 1 }, 'output.fan.pin: pin 16 is already used by output vent'],
    ['output.fan', { kind: 'pwm', pin: 17, sourceId: 2, sourcePin: 1 }, "output.fan.sourceId: id 2 is device tj's, which this board writes; an output reads a control device of its own"],
    ['output.9fan', { kind: 'digital', pin: 17, sourceId: 8, sourcePin: 1 }, 'output.9fan: a name is 1-16 of A-Z a-z 0-9 _ and does not start with a digit'],
    ['output.vent.pin', '15', 'output.vent.pin: pin 15 is already used by sensor door'],
    ['output.vent.pin', '25', 'output.vent.pin: pin 25: GP25 belongs to the Wi-Fi radio (WL_CS) and must never be used'],
    ['output.vent.safe', '0.5', 'output.vent.safe: must be 0 or 1 for kind digital'],
    ['output.vent.freqHz', 500, 'output.vent.freqHz: only for kind pwm'],
    ['output.vent.sourceId', 12, 'output.vent.sourceId: id 12 is health.id, which this board writes; an output reads a control device of its own'],
    ['output.vent.pollMs', '4999', 'output.vent.pollMs: must be a whole number from 5000 to 86400000'],
    ['output.vent.field', 'a b', "output.vent.field: empty for a Value device, or a JSON field like 'vent' or 'vents.north'"],
    ['output.vent.colour', 1, 'output.vent.colour: unknown key (see help())'],
    ['output.vent.pin.x', 1, 'output.vent.pin.x: unknown key (see help())'],
    ['sensor.door.pin', 16, 'output.vent.pin: pin 16 is already used by sensor door'],
    ['health.id', 7, 'output.vent.sourceId: id 7 is health.id, which this board writes; an output reads a control device of its own'],
  ])('%s <- %j is refused: %s; nothing changes', (key, value, error) => {
    const e = created();
    const before = JSON.stringify(e.pending());
    expect(e.set(key, value)).toBe(error);
    expect(JSON.stringify(e.pending())).toBe(before);
  });

  it('refuses a fifth output', () => {
    const e = created();
    for (const [i, pin] of [17, 18, 19].entries()) expect(e.set('output.o' + i, { kind: 'digital', pin, sourceId: 8, sourcePin: 1 })).toBeUndefined();
    expect(e.set('output.o9', { kind: 'digital', pin: 20, sourceId: 8, sourcePin: 1 })).toBe('outputs: at most 4 outputs (got 5)');
    expect(e.pending().outputs).toHaveLength(4);
  });

  it('puts a field back to its default', () => {
    const e = created();
    e.set('output.vent.safe', 1);
    expect(e.unset('output.vent.safe')).toBeUndefined();
    expect(e.pending().outputs[0]?.safe).toBe(0);
  });

  it.each([
    ['output.vent.kind', 'output.vent.kind: every output has a kind; unset output.vent to remove it'],
    ['output.vent.sourceId', 'output.vent.sourceId: required'],
    ['output.vent.pin', 'output.vent.pin: required'],
    ['output.fan', 'output.fan: no such output'],
  ])('unset %s is refused: %s; nothing changes', (key, error) => {
    const e = created();
    const before = JSON.stringify(e.pending());
    expect(e.unset(key)).toBe(error);
    expect(JSON.stringify(e.pending())).toBe(before);
  });

  it('removes an output: set then unset leaves nothing to save', () => {
    const e = created();
    expect(e.unset('output.vent')).toBeUndefined();
    expect(e.pending().outputs).toEqual([]);
    expect(e.dirty()).toBe(false);
  });

  it('removes an output named like a sensor a device carries', () => {
    const e = editor();
    expect(e.set('output.door', { kind: 'digital', pin: 16, sourceId: 7, sourcePin: 1 })).toBeUndefined();
    expect(e.unset('output.door')).toBeUndefined();
    expect(e.pending().outputs).toEqual([]);
    expect(e.pending().sensors.map((s) => s.name)).toEqual(['door']);
  });

  it('round-trips through the editor: the pending config saved and checked again is the same', () => {
    const e = created();
    expect(e.set('output.fan', { kind: 'pwm', pin: 17, sourceId: 8, sourcePin: 1, field: 'fans.north', safe: 0.25 })).toBeUndefined();
    const again = createConfigEditor({ current: configOf(toSaved(e.pending())) });
    expect(again.pending()).toEqual(e.pending());
    expect(again.dirty()).toBe(false);
  });
});

describe('outputs in config() and help(\'keys\')', () => {
  it('lists every field of each output', () => {
    const lines = describeConfig(configOf(withOutputs(vent(), { name: 'fan', kind: 'pwm', pin: 17, sourceId: 8, sourcePin: 1, field: 'fans.north' })));
    expect(lines.filter((l) => l.startsWith('output.'))).toEqual([
      'output.vent.kind = digital',
      'output.vent.pin = 16',
      'output.vent.sourceId = 7',
      'output.vent.sourcePin = ***',
      "output.vent.field = ''",
      'output.vent.pollMs = 60000',
      'output.vent.safe = 0',
      'output.vent.failsafeMs = 600000',
      'output.vent.invert = false',
      'output.fan.kind = pwm',
      'output.fan.pin = 17',
      'output.fan.sourceId = 8',
      'output.fan.sourcePin = ***',
      'output.fan.field = fans.north',
      'output.fan.pollMs = 60000',
      'output.fan.safe = 0',
      'output.fan.failsafeMs = 600000',
      'output.fan.freqHz = 1000',
      'output.fan.scale = 1',
    ]);
  });

  it('explains each output key with its rule and default', () => {
    const lines = helpLines();
    const at = (key: string): string[] => {
      const i = lines.findIndex((l) => l.startsWith(key + ' '));
      return [lines[i] as string, lines[i + 1] as string];
    };
    expect(at('output.<name>.kind')).toEqual(['output.<name>.kind      digital (GPIO level) or pwm (duty 0..1)', '    must be one of digital, pwm; required']);
    expect(at('output.<name>.pollMs')).toEqual(['output.<name>.pollMs    Time between reads of the source (min 5 s)', '    must be a whole number from 5000 to 86400000; default 60000']);
    expect(at('output.<name>.scale')).toEqual(['output.<name>.scale     pwm: duty = value / scale', '    must be a number from 0.000001 to 1000000; default 1']);
  });
});
