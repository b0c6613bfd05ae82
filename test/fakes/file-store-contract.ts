// The FileStore port's contract, walked once for every implementation (Node
// files for the host, the Kaluma port on a model of Kaluma's fs): reads,
// writes, appends, ranges, atomic rename, removal and empty files.
// `raw(path)` reads what the implementation really stored, beneath the port.
import { expect } from 'vitest';
import type { FileStore } from '../../src/ports/ports';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string | undefined => (b ? new TextDecoder().decode(b) : undefined);

export function walkFileStoreContract(fs: FileStore, raw: (path: string) => string | undefined): void {
  expect(fs.read('a/x')).toBeUndefined();
  expect(fs.size('a/x')).toBeUndefined();
  expect(fs.list('a')).toEqual([]);
  fs.mkdir('a');
  fs.mkdir('a');
  fs.append('a/x', bytes('hello'));
  fs.append('a/x', bytes(' world'));
  expect(text(fs.read('a/x'))).toBe('hello world');
  // With the size the caller keeps (0: a new file).
  fs.append('a/z', bytes('ab'), 0);
  fs.append('a/z', bytes('cd'), 2);
  expect(text(fs.read('a/z'))).toBe('abcd');
  fs.remove('a/z');
  expect(fs.size('a/x')).toBe(11);
  expect(text(fs.readAt('a/x', 6, 100))).toBe('world');
  expect(text(fs.readAt('a/x', 2, 3))).toBe('llo');
  fs.write('a/x', bytes('new'));
  expect(raw('a/x')).toBe('new');
  fs.write('a/y.tmp', bytes('swap'));
  fs.rename('a/y.tmp', 'a/x');
  expect(text(fs.read('a/x'))).toBe('swap');
  expect(fs.list('a')).toEqual(['x']);
  fs.remove('a/x');
  fs.remove('a/x');
  expect(fs.list('a')).toEqual([]);
  expect(raw('a/x')).toBeUndefined();
  expect(fs.read('empty')).toBeUndefined();
  fs.write('empty', new Uint8Array(0));
  expect(fs.read('empty')).toEqual(new Uint8Array(0));
}
