// The KvStore port for host runs: one JSON object in a file, read once at
// creation and replaced atomically (temp file, sync, rename) on every change,
// so a killed process leaves either the old settings or the new ones.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { KvStore } from '../../src/ports/ports';

function load(file: string): Map<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw e;
  }
  const v: unknown = JSON.parse(text);
  const out = new Map<string, string>();
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out.set(k, x);
  }
  return out;
}

export function createNodeKvStore(file: string): KvStore {
  const items = load(file);
  const save = (): void => {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = file + '.tmp';
    // The owner's alone, as the board's files: the storage may hold a Wi-Fi password.
    const fd = fs.openSync(tmp, 'w', 0o600);
    try {
      fs.writeSync(fd, JSON.stringify(Object.fromEntries(items), null, 2) + '\n');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  };
  return {
    get: (key) => items.get(key),
    set(key, value) {
      items.set(key, value);
      save();
    },
    remove(key) {
      if (items.delete(key)) save();
    },
  };
}
