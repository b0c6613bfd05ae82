// Outputs driven by a stored value (src/agent/outputs.ts, and each read's
// code, src/agent/output-read.ts), against a scripted service client: what
// is accepted and refused, change-only switching, the failsafe and its
// recovery, a read whose code cannot be loaded, and what gets logged.
import { describe, expect, it } from 'vitest';
import { startOutputs } from '../../src/agent/outputs';
import type { LoadCold, Outputs } from '../../src/agent/outputs';
import { levelOf } from '../../src/agent/output-read';
import { loadOutputsCode } from '../fakes/outputs-code';
import type { AgentConfig, OutputConfig } from '../../src/config/types';
import type { Uplink } from '../../src/agent/uplink';
import type { Call, Outcome, ServiceClient } from '../../src/service/client';
import { createSimPins } from '../../host/ports/pins';
import { createFakeTime } from '../fakes/time';

const KEY = 'k3y0123456789abcdef0123456789abcd';

function out(over: Partial<OutputConfig> = {}): OutputConfig {
  return { name: 'relay', kind: 'digital', pin: 16, sourceId: 7, sourcePin: 77, field: '', pollMs: 5000, safe: 0, failsafeMs: 60000, invert: false, ...over };
}

/**
 * Answers each read from `answer` (a body, or an outcome of failure);
 * records every call. `load`: how a read's code is loaded (default: it
 * always loads; each load counted in `loads`).
 */
function setup(outputs: OutputConfig[], answer: (c: Call<unknown>, n: number) => string | Outcome<unknown>, load?: LoadCold) {
  const time = createFakeTime();
  const pins = createSimPins({ clock: time.clock, random: () => 0.5 });
  const calls: Call<unknown>[] = [];
  const info: string[] = [];
  const errors: string[] = [];
  let wakes = 0;
  const loads: Record<string, number> = {};
  const client: Pick<ServiceClient, 'call'> = {
    call: async <T>(c: Call<T>): Promise<Outcome<T>> => {
      calls.push(c);
      const a = answer(c, calls.length);
      if (typeof a !== 'string') return a as Outcome<T>;
      const f = c.read(a, a, c.secrets);
      return f.ok ? { kind: 'ok', status: 200, value: f.value, note: f.note, bytesSent: 100 } : { kind: 'reject', reason: f.error, bytesSent: 100 };
    },
  };
  const jobs: unknown[] = [];
  const uplink: Pick<Uplink, 'add' | 'remove' | 'wake'> = {
    add: (j) => void (jobs.push(j), wakes++),
    remove: (j) => void jobs.splice(jobs.indexOf(j), 1),
    wake: () => void wakes++,
  };
  const log = { info: (l: string) => void info.push(l), error: (l: string) => void errors.push(l) };
  const made = startOutputs(uplink, client, { outputs, service: { apiKey: KEY } as AgentConfig['service'] }, { pins, clock: time.clock, timers: time.timers, log }, load || loadOutputsCode(loads));
  expect(typeof made).not.toBe('string');
  const o = made as Outputs;
  // The uplink reads through the same object, a job of its own, and was woken for the first reads.
  expect(jobs).toEqual([o]);
  expect(wakes).toBeGreaterThan(0);
  const pin = (n: number) => pins.outputs().find((x) => x.pin === n);
  /** What the uplink does: a read whenever one is due. */
  const poll = async (ms: number, step = 1000): Promise<void> => {
    for (let t = 0; t < ms; t += step) {
      while (o.due) await o.run();
      await time.advance(step);
    }
  };
  return { time, pins, pin, calls, info, errors, o, poll, loads, wakes: () => wakes };
}

describe('output values', () => {
  it('takes digital levels strictly: 0/1, on/off, true/false in any case, trimmed', () => {
    const c = out();
    for (const v of ['1', ' on ', 'ON', 'True', true, 1]) expect(levelOf(c, v)).toBe(1);
    for (const v of ['0', 'off\n', 'OFF', 'false', false, 0]) expect(levelOf(c, v)).toBe(0);
    for (const v of ['2', '1.0', 'yes', '', 'o n', null, 0.5, {}, [1]]) expect(typeof levelOf(c, v)).toBe('string');
  });

  it('takes a pwm duty as a number in range, after the scale', () => {
    expect(levelOf(out({ kind: 'pwm' }), '0.25')).toBe(0.25);
    expect(levelOf(out({ kind: 'pwm' }), 1)).toBe(1);
    expect(levelOf(out({ kind: 'pwm', scale: 100 }), ' 40 ')).toBe(0.4);
    expect(levelOf(out({ kind: 'pwm', scale: 100 }), '1e2')).toBe(1);
    expect(levelOf(out({ kind: 'pwm' }), '1.5')).toBe('duty 1.5 is outside 0..1');
    expect(levelOf(out({ kind: 'pwm' }), '-0.1')).toBe('duty -0.1 is outside 0..1');
    expect(levelOf(out({ kind: 'pwm' }), '50%')).toBe('not a number');
    expect(levelOf(out({ kind: 'pwm' }), 'NaN')).toBe('not a number');
    expect(levelOf(out({ kind: 'pwm' }), true)).toBe('not a number');
  });
});

describe('outputs', () => {
  it('holds the safe level from the start, and follows the source from the first good read', async () => {
    const r = setup([out({ safe: 1 })], () => '0');
    expect(r.pin(16)).toMatchObject({ kind: 'digital', level: 1, writes: 1 });
    expect(r.o.list[0]).toMatchObject({ safe: true, level: 1 });
    expect(r.o.list[0]!.goodAt).toBeUndefined();
    expect(r.info).toContain('output relay: GP16 -> on (safe level until the first good read)');
    await r.poll(1000);
    expect(r.pin(16)?.level).toBe(0);
    expect(r.o.list[0]).toMatchObject({ safe: false, level: 0, reads: 1, goodAt: 0 });
    expect(r.info).toContain('output relay: on -> off (source 7)');
    // The read's code is loaded for the read (the part that holds the
    // outputs is the caller's, loaded once).
    expect(r.loads).toEqual({ 'output-read': 1 });
    // Read as a Value device: showdevicevalue with the source's id and PIN.
    expect(r.calls[0]!.op).toBe('showdevicevalue');
    expect(r.calls[0]!.segments).toEqual([['apiKey', KEY], ['deviceId', '7'], ['devicePin', '77']]);
  });

  it('writes the pin only when the accepted value changes, and logs each change with old and new level', async () => {
    const script = ['1', '1', 'on', 'true', '0', '0', 'OFF', '1'];
    const r = setup([out()], (_c, n) => script[Math.min(n, script.length) - 1]!);
    await r.poll(40000);
    expect(r.calls.length).toBe(8);
    // Safe at start, then 1, 0, 1: four writes for eight reads.
    expect(r.pin(16)?.writes).toBe(4);
    expect(r.pin(16)?.level).toBe(1);
    expect(r.info.filter((l) => l.includes(' -> '))).toEqual([
      'output relay: GP16 -> off (safe level until the first good read)',
      'output relay: off -> on (source 7)', 'output relay: on -> off (source 7)', 'output relay: off -> on (source 7)',
    ]);
  });

  it('drives an inverted digital output low for 1', async () => {
    const r = setup([out({ invert: true })], () => '1');
    // Safe 0 at the start: the pin is high.
    expect(r.pin(16)!.level).toBe(1);
    await r.poll(1000);
    // The output is on (1): the pin is low.
    expect(r.o.list[0]!.level).toBe(1);
    expect(r.pin(16)!.level).toBe(0);
  });

  it('refuses anything else: counted, logged when it differs from the last refusal, and the level is kept', async () => {
    const script = ['1', 'maybe', 'maybe', '2', 'maybe', KEY, KEY, '1'];
    const r = setup([out()], (_c, n) => script[Math.min(n, script.length) - 1]!);
    await r.poll(40000);
    const s = r.o.list[0]!;
    expect(s.refused).toBe(6);
    expect(s.level).toBe(1);
    expect(r.pin(16)?.writes).toBe(2);
    expect(r.errors).toEqual([
      'output relay: refused "maybe": not 0/1, on/off or true/false; keeping on',
      'output relay: refused "2": not 0/1, on/off or true/false; keeping on',
      'output relay: refused "maybe": not 0/1, on/off or true/false; keeping on',
      // Longer than a short word: masked, as it could be a key.
      'output relay: refused "k3y…(35): not 0/1, on/off or true/false; keeping on',
    ]);
    // The key never appears in full.
    expect(r.errors.join('\n')).not.toContain(KEY);
  });

  it('reads a JSON device field, nested with a dot; a missing field or invalid JSON is refused', async () => {
    const bodies = ['{"vents":{"north":"on"}}', '{"vents":{}}', 'not json', '{}', '', '{"vents":{"north":false}}'];
    const r = setup([out({ field: 'vents.north' })], (_c, n) => bodies[Math.min(n, bodies.length) - 1]!);
    await r.poll(30000);
    expect(r.calls.every((c) => c.op === 'showdevicejson')).toBe(true);
    const s = r.o.list[0]!;
    expect(s.level).toBe(0);
    expect(s.refused).toBe(3);
    expect(s.failures).toBe(1);
    expect(r.errors).toContain('output relay: refused no field vents.north: not 0/1, on/off or true/false; keeping on');
    expect(r.errors.some((l) => l.startsWith('output relay: source not read: invalid JSON'))).toBe(true);
  });

  it("reads an I2C part's reading by its whole dotted name, as another board writes it ('air.temperature')", async () => {
    const bodies = ['{"air.temperature":1,"seq":3}', '{"air":{"temperature":0}}'];
    const r = setup([out({ field: 'air.temperature' })], (_c, n) => bodies[Math.min(n, bodies.length) - 1]!);
    await r.poll(5000);
    expect(r.o.list[0]!.level).toBe(1);
    await r.poll(60000);
    // A nested object of that path still reads as before.
    expect(r.o.list[0]!.level).toBe(0);
  });

  it("takes a Value device's bare text, trimmed; a quoted or wrapped value is refused as what it is", async () => {
    const bodies = [' 1 \r\n', '"0"', '{"value":"0"}', 'off'];
    const r = setup([out()], (_c, n) => bodies[Math.min(n, bodies.length) - 1]!);
    const levels: number[] = [];
    for (let i = 0; i < 4; i++) {
      await r.poll(5000);
      levels.push(r.o.list[0]!.level);
    }
    expect(levels).toEqual([1, 1, 1, 0]);
    expect(r.o.list[0]!.refused).toBe(2);
    expect(r.errors).toEqual([
      'output relay: refused "\\"0\\"": not 0/1, on/off or true/false; keeping on',
      // A long word with no space is masked: it could be a key.
      'output relay: refused "{\\"…(19): not 0/1, on/off or true/false; keeping on',
    ]);
  });

  it('treats a value read that reads as an error as a failed read, not a value', async () => {
    const r = setup([out()], () => 'Error: device not found');
    await r.poll(1000);
    expect(r.o.list[0]).toMatchObject({ failures: 1, refused: 0, reads: 0, safe: true });
    expect(r.errors[0]).toMatch(/^output relay: source not read: text reads as an error/);
  });

  it('goes to the safe level after failsafeMs without a good read, and back on the next one', async () => {
    let failing = false;
    const r = setup([out({ safe: 0, failsafeMs: 30000 })], () =>
      failing ? { kind: 'retry', reason: 'connect: refused', bytesSent: 0 } : '1');
    await r.poll(1000);
    expect(r.pin(16)?.level).toBe(1);
    failing = true;
    await r.poll(28000);
    expect(r.pin(16)?.level).toBe(1);
    expect(r.o.list[0]!.safe).toBe(false);
    await r.poll(3000);
    // 30 s after the last good read (at 0 s).
    expect(r.pin(16)?.level).toBe(0);
    expect(r.o.list[0]).toMatchObject({ safe: true, lastError: 'connect: refused' });
    expect(r.errors).toContain('output relay: no good read for 30 s: failsafe');
    expect(r.info).toContain('output relay: on -> off (failsafe)');
    // Failures logged once per distinct reason, not once per read.
    expect(r.errors.filter((l) => l.includes('source not read')).length).toBe(1);
    failing = false;
    await r.poll(6000);
    expect(r.pin(16)?.level).toBe(1);
    expect(r.o.list[0]!.safe).toBe(false);
  });

  it('runs the failsafe clock even when no read is made (a backlog draining, the link down)', async () => {
    const r = setup([out({ safe: 1, failsafeMs: 20000 })], () => '0');
    await r.poll(1000);
    expect(r.pin(16)?.level).toBe(0);
    // No reads at all from here: only the outputs' own timer.
    await r.time.advance(25000);
    expect(r.pin(16)?.level).toBe(1);
    expect(r.o.list[0]!.safe).toBe(true);
    expect(r.wakes()).toBeGreaterThan(0);
  });

  it('drives a pwm output at its frequency, with the scale', async () => {
    const r = setup([out({ kind: 'pwm', pin: 18, freqHz: 2000, scale: 100, safe: 0.1, invert: undefined })], () => '75');
    expect(r.pin(18)).toMatchObject({ kind: 'pwm', freqHz: 2000, level: 0.1 });
    await r.poll(1000);
    expect(r.pin(18)?.level).toBe(0.75);
    expect(r.info).toContain('output relay: 10% -> 75% (source 7)');
  });

  it('reads each output at its own pace, the most overdue first', async () => {
    const r = setup([out(), out({ name: 'lamp', pin: 17, sourceId: 8, pollMs: 10000 })], () => '1');
    await r.poll(30000);
    const ids = r.calls.map((c) => c.segments[1]![1]);
    expect(ids.filter((x) => x === '7').length).toBe(6);
    expect(ids.filter((x) => x === '8').length).toBe(3);
  });

  it('lets its pins go and reads nothing more once stopped', async () => {
    const r = setup([out()], () => '1');
    await r.poll(1000);
    r.o.stop();
    expect(r.pin(16)?.open).toBe(false);
    expect(r.time.pending()).toBe(0);
  });

  it("counts a read whose code cannot be loaded as a failed read, logged once, and still reaches the failsafe", async () => {
    let why = '';
    let free = 4000;
    // The loader's reason names the free heap, which changes at every try.
    const load: LoadCold = <T>(name: string) => (why ? { ok: false as const, error: why.replace('4000', String(free++)) } : loadOutputsCode()<T>(name));
    const r = setup([out({ safe: 0, failsafeMs: 20000 })], () => '1', load);
    await r.poll(1000);
    expect(r.pin(16)?.level).toBe(1);
    why = 'cold code output-read: not enough free heap now (4000 B free, about 9000 B needed)';
    const outcome = await r.o.run();
    // Retried with the uplink's backoff, nothing sent.
    expect(outcome).toEqual({ kind: 'retry', reason: why, bytesSent: 0 });
    await r.poll(24000);
    expect(r.calls.length).toBe(1);
    expect(r.o.list[0]).toMatchObject({ reads: 1, failures: 5, safe: true, lastError: 'cold code output-read: not enough free heap now', level: 0 });
    expect(r.pin(16)?.level).toBe(0);
    // Logged once, in full, though the figures changed at every try.
    expect(r.errors).toEqual(['output relay: ' + why, 'output relay: no good read for 20 s: failsafe']);
    // Loadable again: the next read follows the source.
    why = '';
    await r.poll(5000);
    expect(r.pin(16)?.level).toBe(1);
    expect(r.o.list[0]!.safe).toBe(false);
  });
});
