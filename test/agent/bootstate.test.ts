import { describe, expect, it } from 'vitest';
import { openBootState, STATE_FILE } from '../../src/agent/bootstate';
import type { FileStore, Log } from '../../src/ports/ports';
import { engineDecoder } from '../fakes/engine-decoder';

// A tiny in-memory FileStore that records every mutating call and can be told
// to fail the next write or rename, as a flash I/O error would.
function memFiles() {
  const data = new Map<string, Uint8Array>();
  const ops: string[] = [];
  const fail = { write: 0, rename: 0, read: 0 };
  const store: FileStore = {
    read(p) {
      if (fail.read > 0) {
        fail.read--;
        throw new Error('EIO');
      }
      const b = data.get(p);
      return b ? b.slice() : undefined;
    },
    readAt(p, off, len) {
      return (data.get(p) ?? new Uint8Array(0)).slice(off, off + len);
    },
    write(p, b) {
      ops.push('write ' + p);
      if (fail.write > 0) {
        fail.write--;
        throw new Error('EIO');
      }
      data.set(p, b.slice());
    },
    append(p, b) {
      ops.push('append ' + p);
      const old = data.get(p) ?? new Uint8Array(0);
      const n = new Uint8Array(old.length + b.length);
      n.set(old);
      n.set(b, old.length);
      data.set(p, n);
    },
    size(p) {
      const b = data.get(p);
      return b ? b.length : undefined;
    },
    rename(from, to) {
      ops.push('rename ' + from + ' ' + to);
      if (fail.rename > 0) {
        fail.rename--;
        throw new Error('ENOSPC');
      }
      const b = data.get(from);
      if (!b) throw new Error('ENOENT');
      data.set(to, b);
      data.delete(from);
    },
    remove(p) {
      ops.push('remove ' + p);
      data.delete(p);
    },
    list() {
      return Array.from(data.keys());
    },
    mkdir() {},
  };
  const text = (p: string) => {
    const b = data.get(p);
    return b ? new TextDecoder().decode(b) : undefined;
  };
  const put = (p: string, s: string) => data.set(p, new TextEncoder().encode(s));
  return { store, ops, fail, text, put, data };
}

function memLog() {
  const lines: string[] = [];
  const log: Log = {
    info: (l) => lines.push('info ' + l),
    error: (l) => lines.push('error ' + l),
  };
  return { log, lines };
}

describe('boot counting', () => {
  it('starts at boot 1 with a fresh state when there is no file, and says so once', () => {
    const f = memFiles();
    const l = memLog();
    const b = openBootState({ files: f.store, safeModeBoots: 5, log: l.log });
    expect(b.bootId).toBe(1);
    expect(b.rapidBoots).toBe(0);
    expect(b.safeMode).toBe(false);
    expect(b.reason).toBe('');
    expect([b.lastState, b.lastAsked]).toEqual(['first boot: no earlier boot state on flash', true]);
    expect(l.lines).toEqual(['info boot state: no state.json, starting fresh']);
    expect(f.text(STATE_FILE)).toBe('{"boot":1,"rapid":0,"healthy":false,"state":"booting"}');
  });

  it('increments the boot id on every reopening of the same store', () => {
    const f = memFiles();
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const b = openBootState({ files: f.store, safeModeBoots: 0 });
      b.markHealthy();
      ids.push(b.bootId);
    }
    expect(ids).toEqual([1, 2, 3, 4]);
  });

  it('persists at open with the atomic pattern: tmp file then rename, nothing else', () => {
    const f = memFiles();
    openBootState({ files: f.store, safeModeBoots: 5 });
    expect(f.ops).toEqual(['write state.json.tmp', 'rename state.json.tmp state.json']);
    expect(f.data.has('state.json.tmp')).toBe(false);
  });

  it('reports the state recorded by the previous boot', () => {
    const f = memFiles();
    const a = openBootState({ files: f.store, safeModeBoots: 5 });
    a.record('uplink: sending');
    const b = openBootState({ files: f.store, safeModeBoots: 5 });
    expect(b.lastState).toBe('uplink: sending');
  });

  it("reports 'booting' when the previous boot died before recording anything", () => {
    const f = memFiles();
    openBootState({ files: f.store, safeModeBoots: 5 });
    expect(openBootState({ files: f.store, safeModeBoots: 5 }).lastState).toBe('booting');
  });
});

describe('rapid boots and safe mode', () => {
  it('counts boots that never reached markHealthy and enters safe mode exactly at the threshold', () => {
    const f = memFiles();
    const seen: Array<[number, number, boolean]> = [];
    for (let i = 0; i < 7; i++) {
      const b = openBootState({ files: f.store, safeModeBoots: 5 });
      b.record('uplink: sending');
      seen.push([b.bootId, b.rapidBoots, b.safeMode]);
    }
    expect(seen).toEqual([
      [1, 0, false],
      [2, 1, false],
      [3, 2, false],
      [4, 3, false],
      [5, 4, false],
      [6, 5, true],
      [7, 6, true],
    ]);
  });

  it('does not count a boot that follows a restart someone asked for, nor clear the count of crashes before it', () => {
    const f = memFiles();
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) seen.push(openBootState({ files: f.store, safeModeBoots: 5 }).rapidBoots);
    // Three crashes in a row, then restarts asked for, then crashes again.
    for (let i = 0; i < 6; i++) {
      const b = openBootState({ files: f.store, safeModeBoots: 5 });
      seen.push(b.rapidBoots);
      b.restartAsked(i % 2 ? 'restart: reboot()' : 'maintenance boot');
    }
    for (let i = 0; i < 3; i++) seen.push(openBootState({ files: f.store, safeModeBoots: 5 }).rapidBoots);
    expect(seen).toEqual([0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 4, 5]);
    expect(openBootState({ files: f.store, safeModeBoots: 5 }).safeMode).toBe(true);
  });

  it('keeps the restart asked for on flash with its reason, once', () => {
    const f = memFiles();
    const b = openBootState({ files: f.store, safeModeBoots: 5 });
    const writes = f.ops.length;
    b.restartAsked('restart: maintenance');
    b.restartAsked('restart: maintenance');
    expect(f.ops.slice(writes)).toEqual(['write state.json.tmp', 'rename state.json.tmp state.json']);
    expect(JSON.parse(new TextDecoder().decode(f.store.read('state.json')))).toMatchObject({ asked: true, state: 'restart: maintenance' });
    expect(openBootState({ files: f.store, safeModeBoots: 5 }).lastState).toBe('restart: maintenance');
  });

  it('gives the reason with the count and the last state', () => {
    const f = memFiles();
    f.put(STATE_FILE, '{"boot":41,"rapid":4,"healthy":false,"state":"uplink: sending"}');
    const b = openBootState({ files: f.store, safeModeBoots: 5 });
    expect(b.bootId).toBe(42);
    expect(b.safeMode).toBe(true);
    expect(b.reason).toBe('5 reboots in a row before the agent was marked healthy; last state: uplink: sending');
  });

  it('never enters safe mode when safeModeBoots is 0', () => {
    const f = memFiles();
    f.put(STATE_FILE, '{"boot":100,"rapid":99,"healthy":false,"state":"x"}');
    const b = openBootState({ files: f.store, safeModeBoots: 0 });
    expect(b.rapidBoots).toBe(100);
    expect(b.safeMode).toBe(false);
    expect(b.reason).toBe('');
  });

  it('markHealthy resets the counter in RAM and on flash, and writes only once', () => {
    const f = memFiles();
    f.put(STATE_FILE, '{"boot":3,"rapid":2,"healthy":false,"state":"a"}');
    const b = openBootState({ files: f.store, safeModeBoots: 5 });
    expect(b.rapidBoots).toBe(3);
    f.ops.length = 0;
    b.markHealthy();
    b.markHealthy();
    expect(b.rapidBoots).toBe(0);
    expect(f.ops).toEqual(['write state.json.tmp', 'rename state.json.tmp state.json']);
    expect(f.text(STATE_FILE)).toBe('{"boot":4,"rapid":0,"healthy":true,"state":"booting"}');
    expect(openBootState({ files: f.store, safeModeBoots: 5 }).rapidBoots).toBe(0);
  });

  it('a healthy boot breaks the run: the count starts again from 1 after it', () => {
    const f = memFiles();
    openBootState({ files: f.store, safeModeBoots: 3 });
    openBootState({ files: f.store, safeModeBoots: 3 });
    openBootState({ files: f.store, safeModeBoots: 3 }).markHealthy();
    const b = openBootState({ files: f.store, safeModeBoots: 3 });
    const c = openBootState({ files: f.store, safeModeBoots: 3 });
    expect([b.rapidBoots, c.rapidBoots]).toEqual([0, 1]);
  });

  it('markHealthy does not leave safe mode by itself', () => {
    const f = memFiles();
    f.put(STATE_FILE, '{"boot":9,"rapid":5,"healthy":false,"state":"a"}');
    const b = openBootState({ files: f.store, safeModeBoots: 5 });
    b.markHealthy();
    expect(b.safeMode).toBe(true);
  });

  it('leaveSafeMode clears safe mode and the counter, persisted; a boot that still dies early counts 1', () => {
    const f = memFiles();
    f.put(STATE_FILE, '{"boot":9,"rapid":7,"healthy":false,"state":"a"}');
    const b = openBootState({ files: f.store, safeModeBoots: 5 });
    expect(b.safeMode).toBe(true);
    f.ops.length = 0;
    b.leaveSafeMode();
    expect([b.safeMode, b.reason, b.rapidBoots]).toEqual([false, '', 0]);
    expect(f.ops).toEqual(['write state.json.tmp', 'rename state.json.tmp state.json']);
    expect(f.text(STATE_FILE)).toBe('{"boot":10,"rapid":0,"healthy":false,"state":"booting"}');
    const next = openBootState({ files: f.store, safeModeBoots: 5 });
    expect([next.rapidBoots, next.safeMode]).toEqual([1, false]);
  });

  it('leaveSafeMode writes nothing when the counter is already 0', () => {
    const f = memFiles();
    const b = openBootState({ files: f.store, safeModeBoots: 5 });
    f.ops.length = 0;
    b.leaveSafeMode();
    expect(f.ops).toEqual([]);
  });
});

describe('record', () => {
  it('writes only when the state changed, once per call', () => {
    const f = memFiles();
    const b = openBootState({ files: f.store, safeModeBoots: 5 });
    f.ops.length = 0;
    b.record('uplink: idle');
    b.record('uplink: idle');
    b.record('uplink: sending');
    b.record('uplink: sending');
    expect(f.ops).toEqual([
      'write state.json.tmp',
      'rename state.json.tmp state.json',
      'write state.json.tmp',
      'rename state.json.tmp state.json',
    ]);
    expect(f.text(STATE_FILE)).toBe('{"boot":1,"rapid":0,"healthy":false,"state":"uplink: sending"}');
  });

  it('does not change lastState, which belongs to the previous boot', () => {
    const f = memFiles();
    f.put(STATE_FILE, '{"boot":1,"rapid":0,"healthy":true,"state":"old"}');
    const b = openBootState({ files: f.store, safeModeBoots: 5 });
    b.record('new');
    expect(b.lastState).toBe('old');
  });

  it('keeps at most 80 characters of a long state', () => {
    const f = memFiles();
    const b = openBootState({ files: f.store, safeModeBoots: 5 });
    b.record('x'.repeat(200));
    expect(openBootState({ files: f.store, safeModeBoots: 5 }).lastState).toBe('x'.repeat(80));
  });
});

describe('bad state files and I/O errors', () => {
  const cases: Array<[string, string, string]> = [
    ['not JSON', '{"boot":3,"rap', 'corrupt (not JSON)'],
    ['JSON null', 'null', 'corrupt (bad fields)'],
    ['an array', '[1,2]', 'corrupt (bad fields)'],
    ['a negative boot', '{"boot":-1,"rapid":0,"healthy":true,"state":""}', 'corrupt (bad fields)'],
    ['a fractional count', '{"boot":2,"rapid":0.5,"healthy":true,"state":""}', 'corrupt (bad fields)'],
    ['a missing field', '{"boot":2,"rapid":0,"state":""}', 'corrupt (bad fields)'],
    ['a non-string state', '{"boot":2,"rapid":0,"healthy":true,"state":7}', 'corrupt (bad fields)'],
  ];
  for (const [name, content, why] of cases) {
    it('starts fresh at boot 1 from ' + name + ' and logs one line', () => {
      const f = memFiles();
      const l = memLog();
      f.put(STATE_FILE, content);
      const b = openBootState({ files: f.store, safeModeBoots: 5, log: l.log });
      expect([b.bootId, b.rapidBoots, b.safeMode, b.lastState]).toEqual([1, 0, false, '']);
      expect(l.lines).toEqual(['error boot state: state.json ' + why + ', starting fresh']);
      expect(f.text(STATE_FILE)).toBe('{"boot":1,"rapid":0,"healthy":false,"state":"booting"}');
    });
  }

  it('starts fresh from a record that is not UTF-8, without handing it to the decoder', () => {
    const f = memFiles();
    const l = memLog();
    const seen = engineDecoder();
    // The record of boot 3 with a lone 0xF0 in its state: the byte that makes the engine's decoder overrun.
    f.data.set(STATE_FILE, Uint8Array.from([...new TextEncoder().encode('{"boot":3,"rapid":0,"healthy":true,"state":"'), 0xf0, 0x22, 0x7d]));
    const b = openBootState({ files: f.store, safeModeBoots: 5, log: l.log });
    expect([b.bootId, b.rapidBoots, b.safeMode, b.lastState]).toEqual([1, 0, false, '']);
    expect(l.lines).toEqual(['error boot state: state.json corrupt (not UTF-8), starting fresh']);
    expect(seen).toEqual([]);
    expect(f.text(STATE_FILE)).toBe('{"boot":1,"rapid":0,"healthy":false,"state":"booting"}');
  });

  it('starts fresh when reading throws', () => {
    const f = memFiles();
    const l = memLog();
    f.put(STATE_FILE, '{"boot":5,"rapid":0,"healthy":true,"state":""}');
    f.fail.read = 1;
    const b = openBootState({ files: f.store, safeModeBoots: 5, log: l.log });
    expect(b.bootId).toBe(1);
    expect(l.lines).toEqual(['error boot state: state.json unreadable (EIO), starting fresh']);
  });

  it('keeps working in RAM when the write at open fails, and logs it', () => {
    const f = memFiles();
    const l = memLog();
    f.put(STATE_FILE, '{"boot":5,"rapid":1,"healthy":false,"state":"s"}');
    f.fail.write = 1;
    const b = openBootState({ files: f.store, safeModeBoots: 5, log: l.log });
    expect([b.bootId, b.rapidBoots, b.lastState]).toEqual([6, 2, 's']);
    expect(l.lines).toEqual(['error boot state: could not save state.json: EIO']);
    // The old record is untouched: nothing was renamed over it.
    expect(f.text(STATE_FILE)).toBe('{"boot":5,"rapid":1,"healthy":false,"state":"s"}');
  });

  it('a failed rename leaves the old record whole and the next change is saved', () => {
    const f = memFiles();
    const l = memLog();
    const b = openBootState({ files: f.store, safeModeBoots: 5, log: l.log });
    l.lines.length = 0;
    f.fail.rename = 1;
    expect(() => b.record('uplink: sending')).not.toThrow();
    expect(l.lines).toEqual(['error boot state: could not save state.json: ENOSPC']);
    expect(f.text(STATE_FILE)).toBe('{"boot":1,"rapid":0,"healthy":false,"state":"booting"}');
    b.markHealthy();
    expect(f.text(STATE_FILE)).toBe('{"boot":1,"rapid":0,"healthy":true,"state":"uplink: sending"}');
  });

  it('never throws without a log either', () => {
    const f = memFiles();
    f.fail.read = 1;
    f.fail.write = 2;
    const b = openBootState({ files: f.store, safeModeBoots: 5 });
    expect(() => b.markHealthy()).not.toThrow();
    expect(b.bootId).toBe(1);
  });
});
