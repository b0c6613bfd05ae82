// The resident program's messages, kept on flash (scripts/build/messages.ts) and
// read back by the cold loader (src/cold.ts, message()).
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, type BuildResult } from '../../scripts/build/build';
import { KEEP_TEXT, MessageTable, READER, takeMessages } from '../../scripts/build/messages';
import { createColdLoader, MESSAGES } from '../../src/cold';
import type { ProgramStore } from '../../src/ports/ports';
import { sharedTable } from '../../src/shared';

let built: BuildResult;
let bytes: Uint8Array;
let list: string[];

beforeAll(async () => {
  built = await buildBundle({ outfile: 'dist/cold-test/messages.js' });
  bytes = readFileSync(built.outfile);
  const m = built.cold.find((c) => c.name === MESSAGES)!;
  // The table itself, decoded the way the loader does: index, then JSON strings.
  const text = new TextDecoder().decode(bytes.subarray(m.offset, m.offset + m.bytes));
  list = [];
  for (let i = 0; i < m.codeBytes; i++) {
    const e = text.slice(i * 8, i * 8 + 8);
    list.push(JSON.parse(text.slice(parseInt(e.slice(0, 5), 16), parseInt(e.slice(0, 5), 16) + parseInt(e.slice(5), 16))) as string);
  }
});

const area = (b: Uint8Array): ProgramStore => ({
  read(offset, length) {
    const out = new Uint8Array(length).fill(0xff);
    out.set(b.subarray(offset, offset + length));
    return out;
  },
});

describe('messages taken out of a module', () => {
  const take = (code: string): { out: string; list: string[] } => {
    const t = new MessageTable();
    return { out: takeMessages(code, t), list: t.list };
  };

  it('takes prose used as a value inside a function, once per text', () => {
    const r = take(`export function f(n) { if (n) throw new Error('the value is not a number: ' + n); return 'the value is not a number: ' + n; }`);
    expect(r.list).toEqual(['the value is not a number: ']);
    expect(r.out).toBe(`export function f(n) { if (n) throw new Error(${READER}(0) + n); return ${READER}(0) + n; }`);
  });

  it('leaves what decides what the program does, short strings, and module-level code', () => {
    const code = [
      `const AT_LOAD = 'said while the module loads';`,
      `export function f(e, o) {`,
      `  'use strict and more words';`,
      `  if (e === 'WiFi is not connected.') return 1;`,
      `  if (String(e).indexOf('DNS Error: IP is not found') >= 0) return 2;`,
      `  switch (e) { case 'a case with words': return 3; }`,
      `  const k = { 'a key with words': 1 };`,
      `  return ['short one', k, o['a key with words'], AT_LOAD];`,
      `}`,
    ].join('\n');
    const r = take(code);
    expect(r.list).toEqual([]);
    expect(r.out).toBe(code);
  });

  it('leaves the boot\'s sentences of guidance (KEEP_TEXT), and takes the same words said otherwise', () => {
    const kept = [...KEEP_TEXT][KEEP_TEXT.size - 3] as string;
    const code = `export function f(log) { log.info(${JSON.stringify(kept)}); log.info(${JSON.stringify(kept + ' now')}); }`;
    const r = take(code);
    expect(r.list).toEqual([kept + ' now']);
    expect(r.out).toContain(JSON.stringify(kept));
  });

  it('leaves text of the wire and of payloads: line breaks, markup, quotes, assignments', () => {
    const code = [
      `export function head(m, p, h, n) { return m + ' ' + p + ' HTTP/1.0\\r\\nHost: ' + h + '\\r\\nContent-Length: ' + n; }`,
      `export function xml(s) { return '<reading seq="' + s + '" uptime_ms="'; }`,
      `export function ct() { return 'text/plain; charset=utf-8'; }`,
    ].join('\n');
    const r = take(code);
    expect(r.list).toEqual([]);
    expect(r.out).toBe(code);
  });

  it('writes a section of printable ASCII that cannot end the comment it sits in', () => {
    const t = new MessageTable();
    t.id('over */ there');
    t.id('°C ≤ 5, "quoted"\nnext line');
    const text = t.text();
    expect(text).toMatch(/^[\x20-\x7e]*$/);
    expect(text).not.toContain('*/');
  });
});

describe('the resident program\'s messages in a build', () => {
  it('are on flash, and the resident program reads them instead of naming them', () => {
    expect(list.length).toBeGreaterThan(20);
    const resident = new TextDecoder().decode(bytes.subarray(built.coldBytes));
    expect(resident.startsWith(`function ${READER}(`)).toBe(true);
    // Not one of them as a literal (a kept sentence may hold one as a part).
    for (const m of list) expect(resident).not.toContain(JSON.stringify(m));
    // The boot's own guidance stays legible when the messages cannot be read.
    for (const k of KEEP_TEXT) {
      expect(list).not.toContain(k);
      expect(resident).toContain(JSON.stringify(k));
    }
    // What goes on the wire stays in the code (scripts/build/messages.ts, KEEP):
    // the board sends it on every request, and it must not depend on flash.
    expect(list.filter((m) => /[\r\n<>"=]|HTTP\/|Content-|charset/.test(m))).toEqual([]);
    expect(resident).toContain(' HTTP/1.0');
    expect(resident.match(new RegExp(`${READER}\\(\\d+\\)`, 'g'))!.length).toBeGreaterThanOrEqual(list.length);
  });

  it('are read back whole by the loader, one at a time', () => {
    const cold = createColdLoader({ program: area(bytes), build: built.build, shared: sharedTable });
    expect(cold.messagesError()).toBeUndefined();
    expect(list.map((_, i) => cold.message(i))).toEqual(list);
    expect(cold.message(list.length)).toBe('#' + list.length);
    expect(cold.message(-1)).toBe('#-1');
  });

  it('are refused whole when one bit of them flipped, or when another build is on flash, or none', () => {
    const m = built.cold.find((c) => c.name === MESSAGES)!;
    const flipped = new Uint8Array(bytes);
    flipped[m.offset + m.bytes - 3] = flipped[m.offset + m.bytes - 3]! ^ 0x02;
    const bad = createColdLoader({ program: area(flipped), build: built.build, shared: sharedTable });
    expect(bad.messagesError()).toBe('the messages are corrupt on flash (CRC); flash the board again with ./flash.sh');
    expect(bad.message(0)).toBe('#0');
    const other = createColdLoader({ program: area(bytes), build: '0badc0de', shared: sharedTable });
    expect(other.message(1)).toBe('#1');
    expect(other.messagesError()).toMatch(/^the program on flash is build [0-9a-f]{8}, this one is 0badc0de; flash the board again/);
    const none = createColdLoader({ program: { read: () => undefined }, build: built.build, shared: sharedTable });
    expect(none.message(2)).toBe('#2');
    expect(none.messagesError()).toMatch(/^no program on flash/);
  });
});
