import { describe, expect, it } from 'vitest';
import { SCHEMA, mask } from '../../src/config/schema';
import { helpLines } from '../../src/config/describe';
import { FIELD_HELP } from '../../src/config/field-help';

describe('schema table', () => {
  it('keeps every help text within 60 characters', () => {
    const long = SCHEMA.filter((f) => (FIELD_HELP[f.key_] ?? '').length > 60).map((f) => f.key_);
    expect(long).toEqual([]);
  });

  it('has a help text for every key, and none for a key that does not exist', () => {
    expect(SCHEMA.filter((f) => !FIELD_HELP[f.key_]).map((f) => f.key_)).toEqual([]);
    expect(Object.keys(FIELD_HELP).filter((k) => !SCHEMA.some((f) => f.key_ === k))).toEqual([]);
  });

  it('has each key once', () => {
    const keys = SCHEMA.map((f) => f.key_);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('gives help in lines of at most 80 columns, naming every key', () => {
    const lines = helpLines();
    expect(lines.filter((l) => l.length > 80)).toEqual([]);
    for (const f of SCHEMA) expect(lines.some((l) => l.startsWith(f.key_.replace('*', '<name>')))).toBe(true);
  });

  it('shows the rule and default under each key', () => {
    const lines = helpLines();
    const i = lines.indexOf('agent.requestTimeoutMs  Deadline of one request, connect included');
    expect(lines[i + 1]).toBe('    must be a whole number from 1000 to 60000; default 15000');
    const u = lines.findIndex((l) => l.startsWith('sensor.<name>.unit'));
    expect(lines[u + 1]).toBe("    at most 8 bytes (UTF-8); default C (temperature), V (analog), '' (other)");
    const p = lines.findIndex((l) => l.startsWith('wifi.password'));
    expect(lines[p + 1]).toBe('    8-63 characters, or empty for an open network; default (unset)');
  });
});

describe('mask', () => {
  it.each([
    ['', '(unset)'],
    ['abcdefghijklmnopqrstuvwxyz012345', 'abcd\u2026(32)'],
    ['12345678', '1234\u2026(8)'],
    // Shorter than any valid secret: showing 4 characters would show most or all of it.
    ['abc', '\u2026(3)'],
  ])('%j -> %j', (secret, shown) => {
    expect(mask(secret)).toBe(shown);
  });
});
