import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNodeFileStore } from '../../host/ports/files';
import { createNodeKvStore } from '../../host/ports/kv';
import { walkFileStoreContract } from '../fakes/file-store-contract';
import { outboxCoreSuite } from './helpers';

const root = mkdtempSync(join(tmpdir(), 'outbox-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = (): string => mkdtempSync(join(root, `t${n++}-`));

outboxCoreSuite('node file store', () => {
  const dir = freshDir();
  return () => createNodeFileStore(dir);
});

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('node file store', () => {
  it('reads, writes, appends and ranges like the port says', () => {
    const dir = freshDir();
    walkFileStoreContract(createNodeFileStore(dir), (p) => {
      try {
        return readFileSync(join(dir, p), 'utf8');
      } catch {
        return undefined;
      }
    });
    expect(readdirSync(join(dir, 'a'))).toEqual([]);
  });

  it('throws on an I/O error instead of returning something', () => {
    const fs = createNodeFileStore(freshDir());
    expect(() => fs.readAt('missing', 0, 4)).toThrow(/ENOENT/);
    expect(() => fs.append('no-dir/x', bytes('a'))).toThrow(/ENOENT/);
  });
});

describe('node kv store', () => {
  it('keeps settings across instances and removes them', () => {
    const file = join(freshDir(), 'sub', 'kv.json');
    const kv = createNodeKvStore(file);
    expect(kv.get('ssid')).toBeUndefined();
    kv.set('ssid', 'lab');
    kv.set('interval', '30');
    kv.set('__proto__', 'plain key');
    const again = createNodeKvStore(file);
    expect([again.get('ssid'), again.get('interval'), again.get('__proto__')]).toEqual(['lab', '30', 'plain key']);
    again.remove('ssid');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ interval: '30', ['__proto__']: 'plain key' });
    expect(readdirSync(join(file, '..'))).toEqual(['kv.json']);
  });

  it('ignores values that are not strings in a hand-edited file', () => {
    const file = join(freshDir(), 'kv.json');
    writeFileSync(file, JSON.stringify({ a: 'x', b: 3, c: null }));
    const kv = createNodeKvStore(file);
    expect([kv.get('a'), kv.get('b'), kv.get('c')]).toEqual(['x', undefined, undefined]);
  });
});
