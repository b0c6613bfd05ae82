// The harness of outputs-cost (see outputs-cost.ts): the same fakes, reads
// and measuring code in both programs, so that the difference of their
// floors is what the outputs' code and state hold on the engine's heap.
import type { Platform } from '../../../src/ports/ports';
import type { Call, Outcome } from '../../../src/service/client';
import { floor } from './heap-probe';

declare function print(s: string): void;
declare const READS: number;
declare function setTimeout(cb: () => void, ms: number): number;
declare function clearTimeout(id: number): void;

/** The running outputs as startOutputs returns them: a job of the uplink's. */
interface Running {
  due: boolean;
  run(): Promise<unknown>;
  stop(): void;
}

const BODIES = ['1', '0', 'maybe', '1', '0', '2', '1', '0'];

type Load = (name: string) => { ok: true; value: unknown };
type Start = (up: { add(j: unknown): void; remove(j: unknown): void; wake(): void }, client: { call<T>(c: Call<T>): Promise<Outcome<T>> }, config: unknown, p: Platform, load: Load) => Running | string;

/**
 * `n` outputs (0: none, the baseline); `kept()` evaluates the outputs' kept
 * module (its default export, startOutputs), `read()` a read's module.
 * `held`: what every program keeps alike (the shared table; the modules'
 * text is a literal of each program, kept by the engine all the same).
 */
export function run(n: number, held: unknown, kept: () => unknown, read: () => unknown): void {
  let now = 0;
  let k = 0;
  const lines: string[] = [];
  const drivers = { write(): void {}, close(): void {}, duty(): void {} };
  const p = {
    pins: { digitalOut: () => drivers, pwmOut: () => drivers },
    clock: { uptimeMs: () => now },
    timers: { setTimeout, clearTimeout },
    log: { info: (l: string) => void lines.push(l), error: (l: string) => void lines.push(l) },
  } as unknown as Platform;
  const uplink = { add(): void {}, remove(): void {}, wake(): void {} };
  const client = {
    call<T>(c: Call<T>): Promise<Outcome<T>> {
      const b = BODIES[k++ % BODIES.length] as string;
      const f = c.read(b, b, c.secrets);
      return Promise.resolve((f.ok ? { kind: 'ok', status: 200, value: f.value, note: f.note, bytesSent: 100 } : { kind: 'reject', reason: f.error, bytesSent: 100 }) as Outcome<T>);
    },
  };
  let running: Running | undefined;
  const outputs = [];
  for (let i = 0; i < n; i++) {
    outputs.push(i % 2
      ? { name: 'vent', kind: 'pwm', pin: 18, sourceId: 10, sourcePin: 10, field: 'vent', pollMs: 5000, safe: 0, failsafeMs: 600000, freqHz: 1000, scale: 100 }
      : { name: 'relay', kind: 'digital', pin: 16, sourceId: 8, sourcePin: 8, field: '', pollMs: 5000, safe: 0, failsafeMs: 600000, invert: false });
  }
  const config = { outputs, service: { apiKey: 'k3y0123456789abcdef0123456789abcd' } };
  // The built-ins the outputs call, made once here (the engine makes each
  // on first use, and the agent on a board has made them long before).
  const w = [' A '.trim().toLowerCase().indexOf('a'), JSON.stringify(JSON.parse('{"a":[1]}')), Math.round(isFinite(Number('1.5')) ? 1.5 : 0), 'a.b'.split('.').slice(0, 1), String(1)];
  if (w.push(0) > 9) w.shift();
  void (async (): Promise<number> => w.length)().then((n) => Promise.resolve(n));
  (globalThis as unknown as Record<string, unknown>).held = held;
  // As the cold loader does: the module evaluated afresh, nothing kept.
  const load: Load = () => ({ ok: true, value: read() });
  const base = floor();
  if (n) {
    const made = (kept() as Start)(uplink, client, config, p, load);
    if (typeof made === 'string') print('start: ' + made + '\n');
    else running = made;
  }
  lines.length = 0;
  const attached = floor();
  let reads = 0;
  const step = (): void => {
    if (reads >= READS) {
      lines.length = 0;
      print('@RESULT ' + JSON.stringify({ base, attached, end: floor() }) + '\n');
      // Its timer let go: the program ends.
      if (running) running.stop();
      return;
    }
    reads++;
    now += 5000;
    const o = running;
    if (!o || !o.due) {
      setTimeout(step, 0);
      return;
    }
    void o.run().then(() => setTimeout(step, 0));
  };
  setTimeout(step, 0);
}
