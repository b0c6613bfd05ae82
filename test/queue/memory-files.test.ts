// The fake store's power model is what the power-cut tests rely on.
import { describe, expect, it } from 'vitest';
import { createMemoryFileStore } from '../fakes/files';

const b = (...xs: number[]): Uint8Array => new Uint8Array(xs);

describe('memory file store', () => {
  it('tears the next write after k bytes and keeps working', () => {
    const fs = createMemoryFileStore();
    fs.append('x', b(1, 2));
    fs.tearNext(1);
    expect(() => fs.append('x', b(3, 4, 5))).toThrow('torn write');
    expect(fs.contents('x')).toEqual(b(1, 2, 3));
    expect(fs.isDark()).toBe(false);
    fs.append('x', b(6));
    expect(fs.contents('x')).toEqual(b(1, 2, 3, 6));
    expect(fs.counts).toMatchObject({ appends: 3, bytesWritten: 4 });
  });

  it('cuts the power inside a write, then refuses every change until powered on', () => {
    const fs = createMemoryFileStore();
    fs.mkdir('d');
    fs.write('d/a', b(9, 9));
    fs.powerCutAfter(3);
    fs.append('d/a', b(1, 2));
    expect(() => fs.write('d/t', b(7, 7, 7))).toThrow('power cut');
    expect(fs.isDark()).toBe(true);
    expect(fs.contents('d/t')).toEqual(b(7));
    expect(() => fs.rename('d/t', 'd/a')).toThrow('no power');
    expect(() => fs.append('d/a', b(1))).toThrow('no power');
    expect(fs.read('d/a')).toEqual(b(9, 9, 1, 2));
    fs.powerOn();
    fs.rename('d/t', 'd/a');
    expect(fs.paths()).toEqual(['d/a']);
    expect(fs.list('d')).toEqual(['a']);
    expect(fs.list('')).toEqual(['d']);
  });

  it('counts a rename or remove as one unit of the budget', () => {
    const fs = createMemoryFileStore();
    fs.write('a', b(1));
    fs.write('c', b(1));
    fs.powerCutAfter(1);
    fs.rename('a', 'b');
    expect(() => fs.remove('c')).toThrow('power cut');
    expect(fs.paths()).toEqual(['b', 'c']);
  });

  it('leaves the old content when a write is cut before its first byte', () => {
    const fs = createMemoryFileStore();
    fs.write('a', b(1, 2));
    fs.powerCutAfter(0);
    expect(() => fs.write('a', b(3))).toThrow('power cut');
    expect(fs.contents('a')).toEqual(b(1, 2));
  });

  it('needs the directory to exist, like LittleFS', () => {
    const fs = createMemoryFileStore();
    expect(() => fs.append('q/x', b(1))).toThrow(/ENOENT/);
    expect(() => fs.readAt('q/x', 0, 1)).toThrow(/ENOENT/);
    expect(fs.read('q/x')).toBeUndefined();
    expect(fs.list('q')).toEqual([]);
  });
});
