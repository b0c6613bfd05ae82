import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findKalumaUses } from '../scripts/build/boundary';

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

const inKalumaPorts = (f: string): boolean => f.includes('src/ports/kaluma/');

describe('platform boundary', () => {
  it('names no Kaluma module or global outside src/ports/kaluma', () => {
    expect(findKalumaUses(tsFiles('src'), inKalumaPorts)).toEqual([]);
  });

  it('flags a Kaluma module import and global call, and not a property of the same name', () => {
    const uses = findKalumaUses(['test/fixtures/boundary/leak.ts'], inKalumaPorts);
    expect(uses.map((u) => `${u.line} ${u.what}`)).toEqual(["2 module 'wifi'", "5 global 'millis'"]);
  });
});
