// Case 4: 100 power cuts at random points. The board runs on the flash outbox
// over an in-memory file store that loses power after a random number of
// written bytes (so cuts land inside segment appends, cursor writes, renames
// and removes); at the cut the agent is abandoned without any cleanup (its
// timers belong to a clock that never runs again), power comes back and a
// new agent boots over what is left, with the next bootId. The service is a
// scripted writer that takes 300 ms per request on the fake clock and is
// down for whole boots now and then, so the queue also builds across boots.
//
// Every record whose push returned true is delivered, in order. A record is
// sent twice only when the cut fell between the service storing it and the
// outbox saving the acknowledgement: the repeat then comes straight after.
import { describe, expect, it } from 'vitest';
import type { WriteOutcome, Writer } from '../../src/agent/uplink';
import type { Call, Outcome, ServiceClient } from '../../src/service/client';
import type { SimPins } from '../../host/ports/pins';
import { createSimWifi } from '../../host/ports/wifi';
import { testConfig } from '../fakes/config';
import type { FileStore } from '../../src/ports/ports';
import { createMemoryFileStore } from '../fakes/files';
import type { MemoryFileStore } from '../fakes/files';
import { between, Rig, seeded, seqs, unstamp } from './harness';

interface Received {
  seq: number;
  boot: number;
}

const CUTS = 100;

/** Aims a cut at the n-th rename or remove from now (they cost one unit each, so random byte counts rarely hit them). */
interface Aim {
  op: 'rename' | 'remove';
  n: number;
}

/** The store as the agent sees it, noting which call each power cut landed in. */
function noteCuts(files: MemoryFileStore, aim: { at?: Aim }, onCut: (what: string) => void): FileStore {
  const watch = <A extends unknown[]>(what: string, f: (...a: A) => void) => (...a: A): void => {
    const lit = !files.isDark();
    if (lit && aim.at && aim.at.op === what && --aim.at.n === 0) {
      aim.at = undefined;
      files.powerCutAfter(0);
    }
    try {
      f(...a);
    } finally {
      if (lit && files.isDark()) {
        const path = String(a[0]).replace(/^q\/(c\/)?/, '').replace(/-\d+$/, '');
        onCut(what + ' ' + path);
      }
    }
  };
  return {
    read: (p) => files.read(p),
    readAt: (p, o, n) => files.readAt(p, o, n),
    size: (p) => files.size(p),
    list: (d) => files.list(d),
    write: watch('write', (p: string, b: Uint8Array) => files.write(p, b)),
    append: watch('append', (p: string, b: Uint8Array) => files.append(p, b)),
    rename: watch('rename', (f: string, t: string) => files.rename(f, t)),
    remove: watch('remove', (p: string) => files.remove(p)),
    mkdir: watch('mkdir', (d: string) => files.mkdir(d)),
  };
}

describe('power cuts', () => {
  it(`loses no pushed record over ${CUTS} cuts at random points, keeps order, repeats at most the record in flight`, async () => {
    const r = seeded(5);
    const cfg = testConfig();
    for (const s of cfg.sensors) s.intervalMs = 2000;
    // A relay following a control device, read every 5 s of a boot: 1 while
    // the service is up, a read failure (503) while it is down.
    const CONTROL = 88;
    cfg.outputs = [{ name: 'relay', kind: 'digital', pin: 16, sourceId: CONTROL, sourcePin: 8, field: '', pollMs: 5000, safe: 0, failsafeMs: 600000, invert: false }];
    let reads = 0;
    const files = createMemoryFileStore();
    const received: Received[] = [];
    let serverDown = false;
    // The board's health reports go to a device of their own, every 20 s of a boot.
    const HEALTH = 77;
    let reports = 0;
    let lastCall = '';
    const writer = (rig: Rig): Writer => {
      const time = rig.time;
      const boot = rig.bootId;
      const call = (device: number, body: string): Promise<WriteOutcome> => {
        lastCall = device === HEALTH ? 'report' : 'reading';
        if (device === HEALTH) {
          if (!serverDown) reports++;
          const o: WriteOutcome = serverDown ? { kind: 'retry', reason: 'HTTP 503', bytesSent: 10 } : { kind: 'ok', status: 200, bytesSent: 10 };
          return new Promise((resolve) => time.timers.setTimeout(() => resolve(o), 300));
        }
        // The service stores the write as it arrives; which record it is
        // comes from the head of the outbox and must match the body sent.
        const head = rig.queue.peek(1)[0];
        const dev = cfg.devices.find((d) => d.deviceId === device)!;
        const same = head !== undefined && head.device === dev.name && head.payload === unstamp(body);
        if (!serverDown) received.push({ seq: same ? head.seq : -1, boot });
        const out: WriteOutcome = serverDown
          ? { kind: 'retry', reason: 'HTTP 503', retryAfterMs: 5000, bytesSent: body.length }
          : { kind: 'ok', status: 200, bytesSent: body.length };
        return new Promise((resolve) => time.timers.setTimeout(() => resolve(out), 300));
      };
      return {
        writeValue: (d, t) => call(d.deviceId, t),
        writeJson: (d, t) => call(d.deviceId, t),
        writeXml: (d, t) => call(d.deviceId, t),
      };
    };
    const reader = (rig: Rig): Pick<ServiceClient, 'call'> => ({
      call: <T>(c: Call<T>): Promise<Outcome<T>> => {
        lastCall = 'read';
        const f = c.read('1', '1', c.secrets);
        if (!serverDown) reads++;
        const o = (serverDown || !f.ok
          ? { kind: 'retry', reason: 'HTTP 503', bytesSent: 10 }
          : { kind: 'ok', status: 200, value: f.value, note: '', bytesSent: 10 }) as Outcome<T>;
        return new Promise((resolve) => rig.time.timers.setTimeout(() => resolve(o), 300));
      },
    });
    const cutIn: Record<string, number> = {};
    // Cuts after the service stored a write whose acknowledgement was not saved yet:
    // a request in flight, or the cursor save of the acknowledgement itself.
    let inFlightAtCut = 0;
    const onCut = (what: string): void => {
      cutIn[what] = (cutIn[what] ?? 0) + 1;
      // A reading in flight (a report in flight is never resent: it is not on flash).
      const flying = rig.agent.uplink.stats().inFlightSinceMs !== undefined && lastCall === 'reading';
      if (!serverDown && (flying || what.includes('cursor'))) inFlightAtCut++;
    };
    const aim: { at?: Aim } = {};
    const rig: Rig = new Rig({
      config: cfg, files: noteCuts(files, aim, onCut), wifi: createSimWifi({ ssid: 'field-net', up: true }), writer, reader, segmentBytes: 512,
      health: { deviceId: HEALTH, devicePin: 7, everyMs: 20000 },
      dead: () => files.isDark(),
    });

    for (let cut = 0; cut < CUTS; cut++) {
      serverDown = r() < 0.3;
      // One cut in five comes within the first few writes after power-on
      // (the boot scan's clean-up included), one in five is aimed at a
      // cursor rename or a segment removal, the rest fall on a random byte.
      const kind = r();
      if (kind < 0.2) files.powerCutAfter(between(r, 0, 120));
      else if (kind < 0.4 && !serverDown) {
        // Acknowledgements rename the cursor and remove segments; a random
        // byte count stays as the fallback.
        aim.at = { op: r() < 0.5 ? 'rename' : 'remove', n: between(r, 1, 3) };
        files.powerCutAfter(between(r, 1000, 4000));
      } else files.powerCutAfter(between(r, 1, 3000));
      rig.boot();
      for (let t = 0; !files.isDark(); t++) {
        if (t > 3600) throw new Error('no cut within an hour of boot ' + rig.bootId);
        await rig.time.advance(1000);
      }
      aim.at = undefined;
      files.powerOn();
    }
    serverDown = false;
    rig.boot();
    await rig.time.advance(60000);
    rig.agent.sampler.stop();
    for (let t = 0; rig.queue.stats().depth > 0 && t < 3600; t++) await rig.time.advance(1000);

    const produced = seqs(rig.produced);
    const delivered = received.map((x) => x.seq);
    // Consecutive repeats are the resends after a cut; nothing else may differ.
    const collapsed = delivered.filter((s, i) => i === 0 || s !== delivered[i - 1]);
    const repeats = delivered.length - collapsed.length;
    const repeatedAtBoot = received.filter((x, i) => i > 0 && x.seq === received[i - 1]!.seq && x.boot !== received[i - 1]!.boot).length;
    console.log(
      `[power-cuts] ${CUTS} cuts, ${rig.bootId} boots; cuts landed in ${JSON.stringify(cutIn)}; ` +
        `${produced.length} records pushed, ${delivered.length} writes stored by the service, ${repeats} repeated (cuts with a write in flight: ${inFlightAtCut}); ` +
        `store: ${files.paths().length} files`,
    );
    expect(delivered).not.toContain(-1);
    // seq never goes back, across boots too.
    expect(produced).toEqual([...new Set(produced)].sort((a, b) => a - b));
    expect(collapsed).toEqual(produced);
    // Exactly one repeat per cut with a stored but unacknowledged write, and
    // each one is the first write of the next boot.
    expect(repeats).toBe(inFlightAtCut);
    expect(repeatedAtBoot).toBe(repeats);
    expect(rig.queue.stats()).toMatchObject({ depth: 0, dropped: 0, rejected: 0 });
    expect(produced.length).toBeGreaterThan(1000);
    // Health reports went out between the readings, and changed none of the above.
    expect(reports).toBeGreaterThan(CUTS / 2);
    // So did the relay's reads; after the last boot it follows its source again.
    expect(reads).toBeGreaterThan(CUTS / 2);
    expect(rig.outputs!.list[0]).toMatchObject({ level: 1, safe: false });
    expect((rig.p.pins as SimPins).outputs().find((x) => x.pin === 16)).toMatchObject({ kind: 'digital', level: 1, open: true });
    expect(Object.values(cutIn).reduce((a, b) => a + b, 0)).toBe(CUTS);
    // Cuts hit appends, cursor writes, cursor renames and segment removals.
    expect(Object.keys(cutIn)).toEqual(expect.arrayContaining(['append seg', 'write cursor.tmp', 'rename cursor.tmp', 'remove seg']));
  });
});
