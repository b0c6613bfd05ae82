// src/ as it was at a git revision, for engine scripts that print figures
// before and after (--base REV).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Writes src/ of git revision `rev` into dir/src; returns that path. */
export function srcAt(rev: string, dir: string): string {
  const tar = join(dir, 'src.tar');
  execFileSync('git', ['archive', '--format=tar', '-o', tar, rev, 'src']);
  execFileSync('tar', ['-xf', tar, '-C', dir]);
  return join(dir, 'src');
}
