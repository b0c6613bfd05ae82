// The real Kaluma file port (src/ports/kaluma/files.ts) over a fake of
// Kaluma's fs module that refuses like a full or worn LittleFS and counts the
// C file handles the runtime never frees. The port requires 'fs' through
// Kaluma's global require(), stubbed below for this file only, so node's fs
// is never reached.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { FileStore } from '../../src/ports/ports';
import { createOutbox } from '../../src/queue/outbox';
import { createKalumaFs, kalumaFs as kfs } from '../fakes/kaluma-fs';
import type { KalumaFsFake } from '../fakes/kaluma-fs';
import { walkFileStoreContract } from '../fakes/file-store-contract';
import { outboxCoreSuite, rec } from '../queue/helpers';
import { stubKalumaRequire } from './kaluma-env';

stubKalumaRequire({ fs: kfs });

// A computed path keeps the type checker out: the port is typed against
// Kaluma's fs declarations, the tests against node's.
const PORT = '../../src/ports/kaluma/files';
const { kalumaFiles: files } = (await import(PORT)) as { kalumaFiles: FileStore };
// The file system fs.js's __lookup finds at '/': the port calls it directly.
const mount = kfs.__lookup('/');

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string | undefined => b && new TextDecoder().decode(b);
const N = 1000;

/** Runs f n times, each expected to throw; returns how many did. */
function refusedTimes(n: number, f: () => unknown): number {
  let thrown = 0;
  for (let i = 0; i < n; i++) {
    try {
      f();
    } catch {
      thrown++;
    }
  }
  return thrown;
}

beforeEach(() => kfs.reset());

outboxCoreSuite('kaluma port over the fake fs', () => {
  kfs.reset();
  return () => files;
});

describe('kaluma file port: the FileStore contract', () => {
  it('reads, writes, appends and ranges, and closes everything it opened', () => {
    walkFileStoreContract(files, (p) => text(kfs.contents('/' + p)));
    expect(kfs.handles()).toBe(0);
    expect(kfs.fds()).toBe(0);
  });

  it("opens, reads, writes and closes through the mount itself: never fs.js's calls, its writeFile or readFile, nor an 'a' open", () => {
    const viaFsJs = (['open', 'read', 'write', 'close', 'rename', 'writeFile', 'readFile'] as const).map((k) => vi.spyOn(kfs, k));
    const open = vi.spyOn(mount, 'open');
    const close = vi.spyOn(mount, 'close');
    files.append('seg', bytes('x'));
    files.append('seg', bytes('y'));
    files.write('cur.tmp', bytes('z'));
    files.rename('cur.tmp', 'cur');
    expect(text(kfs.contents('/cur'))).toBe('z');
    expect(text(files.read('seg'))).toBe('xy');
    expect(text(files.readAt('seg', 1, 1))).toBe('y');
    for (const f of viaFsJs) expect(f).not.toHaveBeenCalled();
    // A missing file is created with 'w' (write, create, truncate: 38), an
    // existing one appended with 'r+' (3), reads with 'r' (1): fs.js's bits.
    expect(open.mock.calls.map((c) => c[1])).toEqual([38, 3, 38, 1, 1]);
    expect(close).toHaveBeenCalledTimes(5);
    vi.restoreAllMocks();
    expect(kfs.handles()).toBe(0);
  });

  it("goes through fs.js's open, with its flags strings, where fs has no __lookup", async () => {
    const bare = createKalumaFs() as Partial<KalumaFsFake>;
    delete bare.__lookup;
    vi.resetModules();
    stubKalumaRequire({ fs: bare });
    const fresh = ((await import(PORT)) as { kalumaFiles: FileStore }).kalumaFiles;
    const open = vi.spyOn(bare as KalumaFsFake, 'open');
    const rename = vi.spyOn(bare as KalumaFsFake, 'rename');
    try {
      // The port requires fs on its first call.
      walkFileStoreContract(fresh, (p) => text((bare as KalumaFsFake).contents('/' + p)));
    } finally {
      stubKalumaRequire({ fs: kfs });
    }
    const flags = new Set(open.mock.calls.map((c) => c[1]));
    expect(rename).toHaveBeenCalled();
    expect([...flags].sort()).toEqual(['r', 'r+', 'w']);
    expect((bare as KalumaFsFake).handles()).toBe(0);
    vi.restoreAllMocks();
  });

  it('appends at a size the caller keeps without looking it up (no exists, no stat)', () => {
    files.append('seg', bytes('abc'));
    const exists = vi.spyOn(kfs, 'exists');
    const stat = vi.spyOn(kfs, 'stat');
    const open = vi.spyOn(mount, 'open');
    files.append('seg', bytes('de'), 3);
    files.append('new', bytes('fg'), 0);
    expect(exists).not.toHaveBeenCalled();
    expect(stat).not.toHaveBeenCalled();
    expect(open.mock.calls.map((c) => c[1])).toEqual([3, 38]);
    vi.restoreAllMocks();
    expect(text(kfs.contents('/seg'))).toBe('abcde');
    expect(text(kfs.contents('/new'))).toBe('fg');
    expect(kfs.handles()).toBe(0);
  });

  it('reads a file the caller keeps without looking for it first', () => {
    files.append('seg', bytes('abcde'));
    const exists = vi.spyOn(kfs, 'exists');
    expect(text(files.readAt('seg', 1, 3, true))).toBe('bcd');
    expect(exists).not.toHaveBeenCalled();
    expect(text(files.readAt('seg', 0, 2))).toBe('ab');
    expect(exists).toHaveBeenCalledTimes(1);
    vi.restoreAllMocks();
    expect(kfs.handles()).toBe(0);
  });
});

describe('kaluma file port against a file system that refuses', () => {
  it(`leaves no handle open after ${N} refused writes (new and existing files)`, () => {
    files.write('cursor.json', bytes('{"head":1}'));
    kfs.refuse('write');
    expect(refusedTimes(N, () => files.write('cursor.json.tmp', bytes('{"head":2}')))).toBe(N);
    expect(refusedTimes(N, () => files.write('cursor.json', bytes('{"head":3}')))).toBe(N);
    expect(kfs.counts.refused).toBe(2 * N);
    expect(kfs.handles()).toBe(0);
    expect(kfs.fds()).toBe(0);
    // The refused write never reached the flash: the old content is intact.
    expect(text(kfs.contents('/cursor.json'))).toBe('{"head":1}');
  });

  it(`leaves no handle open after ${N} refused appends (existing and missing files)`, () => {
    files.mkdir('q');
    files.append('q/seg-1', bytes('frame'));
    kfs.refuse('write');
    expect(refusedTimes(N, () => files.append('q/seg-1', bytes('more')))).toBe(N);
    expect(refusedTimes(N, () => files.append('q/seg-2', bytes('first')))).toBe(N);
    expect(kfs.handles()).toBe(0);
    expect(text(kfs.contents('/q/seg-1'))).toBe('frame');
  });

  it(`leaves no handle open after ${N} refused reads, whole and ranged`, () => {
    files.write('state.json', bytes('{"boot":3}'));
    kfs.refuse('read', Infinity, -84);
    expect(refusedTimes(N, () => files.read('state.json'))).toBe(N);
    expect(refusedTimes(N, () => files.readAt('state.json', 2, 4))).toBe(N);
    expect(kfs.handles()).toBe(0);
    expect(kfs.fds()).toBe(0);
  });

  it('a refused open throws and the port opens nothing else for it', () => {
    kfs.refuse('open');
    expect(refusedTimes(N, () => files.write('new.tmp', bytes('x')))).toBe(N);
    expect(kfs.counts.open).toBe(N);
    // Each refused open leaks in the runtime itself: the port cannot free it,
    // so it must not multiply it (no second open, no retry).
    expect(kfs.handles()).toBe(N);
    expect(kfs.fds()).toBe(0);
  });

  it('a refused close is not retried (LittleFS already freed its cache: a second close frees it again)', () => {
    files.write('x', bytes('1'));
    const closes = kfs.counts.close;
    kfs.refuse('close', 1);
    expect(() => files.write('x', bytes('2'))).toThrow('No space left on device');
    expect(kfs.counts.close - closes).toBe(1);
    expect(kfs.handles()).toBe(1);
    // Not committed: the file keeps what its last good close wrote.
    expect(text(kfs.contents('/x'))).toBe('1');
  });

  it('readAt of a missing file throws, naming it, and opens nothing', () => {
    expect(() => files.readAt('q/seg-9', 0, 64)).toThrow('q/seg-9: no such file');
    expect(kfs.counts.open).toBe(0);
    expect(kfs.handles()).toBe(0);
  });

  it('read, size, remove and list of what is missing open nothing', () => {
    expect(files.read('nope')).toBeUndefined();
    expect(files.size('nope')).toBeUndefined();
    files.remove('nope');
    expect(files.list('nodir')).toEqual([]);
    expect(kfs.counts.open).toBe(0);
  });

  it('an outbox over the port keeps working once the file system accepts writes again', () => {
    const ob = createOutbox({ files, dir: 'q', maxBytes: 64 * 1024 })!;
    expect(ob.push(rec(ob.nextSeq()))).toBe(true);
    kfs.refuse('write');
    for (let i = 0; i < 50; i++) expect(ob.push(rec(ob.nextSeq()))).toBe(false);
    kfs.accept();
    expect(ob.push(rec(ob.nextSeq()))).toBe(true);
    expect(ob.peek(10).map((r) => r.seq)).toEqual([1, 52]);
    expect(kfs.handles()).toBe(0);
  });

  // The control: fs.js's own writeFile on the same refusals leaves one
  // handle and one fd behind per call. The port must never be this.
  it("control: Kaluma's writeFile leaks a handle and an fd on every refused write", () => {
    kfs.refuse('write');
    expect(refusedTimes(100, () => kfs.writeFile('/cursor.tmp', bytes('x')))).toBe(100);
    expect(kfs.handles()).toBe(100);
    expect(kfs.fds()).toBe(100);
  });
});
