// The cold-code loader (src/cold.ts) on a real build of the program: the
// same bytes the board stores, read back through the host's program port.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, type BuildResult } from '../../scripts/build/build';
import { loadResidency } from '../../scripts/build/residency';
import { createFileProgram, noProgram } from '../../host/ports/program';
import { COLD_HEAD_MAX, COLD_HEAP_PER_BYTE, createColdLoader, MESSAGES } from '../../src/cold';
import { I2C_KINDS } from '../../src/sensors/i2c/kinds';
import { sharedTable } from '../../src/shared';
import type { ProgramStore } from '../../src/ports/ports';
import { crc32 } from '../../src/queue/crc32';

let built: BuildResult;
let bytes: Uint8Array;

beforeAll(async () => {
  built = await buildBundle({ outfile: 'dist/cold-test/agent.js' });
  bytes = readFileSync(built.outfile);
});

/** A program area holding `b`, erased after it; reads into the buffer it is given, as the board's port does. */
function area(b: Uint8Array): ProgramStore & { reads: number; longest: number; lengths: number[]; buffers: Set<Uint8Array> } {
  const s = {
    reads: 0,
    longest: 0,
    lengths: [] as number[],
    buffers: new Set<Uint8Array>(),
    read(offset: number, length: number, into?: Uint8Array) {
      s.reads++;
      s.longest = Math.max(s.longest, length);
      s.lengths.push(length);
      if (into) s.buffers.add(into);
      const out = into ? into.subarray(0, length) : new Uint8Array(length);
      out.fill(0xff);
      out.set(b.subarray(offset, offset + length));
      return out;
    },
  };
  return s;
}

describe('cold code loader', () => {
  it('puts every cold module of src/residency.json in the artifact, in front of the resident program', () => {
    // Then the resident program's messages (scripts/build/messages.ts).
    expect(built.cold.map((c) => c.name)).toEqual(Object.keys(loadResidency().cold).sort().concat(MESSAGES));
    // The I2C kinds' drivers among them: the kinds table names them (src/sensors/i2c/kinds.ts).
    expect(built.cold.map((c) => c.name)).toEqual(expect.arrayContaining(['bme280', 'sht3x', 'sht4x', 'bh1750', 'i2c-go', 'i2c-read', 'i2c-start', 'scan']));
    const text = new TextDecoder().decode(bytes);
    expect(text.startsWith('/*PDA-COLD ' + built.build + ' ')).toBe(true);
    // The comment ends once, where the resident program begins.
    expect(text.indexOf('*/')).toBe(built.coldBytes - 3);
  });

  it('loads each module from the stored program and hands back what it exports', () => {
    const cold = createColdLoader({ program: area(bytes), build: built.build, shared: sharedTable });
    for (const c of built.cold.filter((x) => x.name !== MESSAGES)) {
      const m = cold.load<unknown>(c.name);
      // Console modules give a command runner; 'check' gives the config codec, an I2C driver its three steps.
      expect(m.ok ? typeof m.value : m.error).toBe(c.name === 'check' || c.name in I2C_KINDS ? 'object' : 'function');
    }
  });

  it('reads the same bytes through the host port that npm start uses', () => {
    const cold = createColdLoader({ program: createFileProgram(built.outfile), build: built.build, shared: sharedTable });
    const m = cold.load<unknown>('help');
    expect(m.ok).toBe(true);
  });

  it('finds the section behind text put in front of the program (a harness of its own), and looks for it only once', () => {
    const pre = new TextEncoder().encode('var standIn = 1;\n'.repeat(900));
    const joined = new Uint8Array(pre.length + bytes.length);
    joined.set(pre);
    joined.set(bytes, pre.length);
    const p = area(joined);
    const cold = createColdLoader({ program: p, build: built.build, shared: sharedTable });
    expect(cold.load<unknown>('help').ok).toBe(true);
    const searching = p.reads;
    expect(cold.load<unknown>('state').ok).toBe(true);
    // Second load: the header and the module a window at a time, no search.
    const len = built.cold.find((x) => x.name === 'state')!.bytes;
    expect(p.reads - searching).toBeGreaterThanOrEqual(1 + Math.ceil(len / 512));
    expect(p.reads - searching).toBeLessThanOrEqual(2 + Math.ceil(len / 508));
  });

  it('reads a module 512 B at a time into one buffer, never the whole module at once', () => {
    const p = area(bytes);
    const cold = createColdLoader({ program: p, build: built.build, shared: sharedTable });
    expect(cold.load<unknown>('check').ok).toBe(true);
    expect(built.cold.find((x) => x.name === 'check')!.bytes).toBeGreaterThan(4096);
    // The header line is read in one piece (COLD_HEAD_MAX), every module 512 B at a time.
    expect(p.longest).toBeLessThanOrEqual(Math.max(512, COLD_HEAD_MAX));
    expect(p.lengths.filter((n) => n !== COLD_HEAD_MAX).every((n) => n <= 512)).toBe(true);
    expect(p.buffers.size).toBe(1);
  });

  it('decodes characters of several bytes that a window boundary cuts, and checks the CRC over every byte', () => {
    // A module of its own: its code and its strings full of 2-, 3- and 4-byte characters.
    const runs = '\u00e9\u20ac\u{1F600}x'.repeat(300);
    const code = '(function(__shared,__s){return function(){return __s[0] + ' + JSON.stringify(runs) + ';};})';
    const strings = JSON.stringify(['\u00e4'.repeat(700) + '\u20ac']);
    const enc = new TextEncoder();
    const body = enc.encode(code + '\n' + strings);
    const n = enc.encode(code).length;
    const head = (off: number): string => '/*PDA-COLD b1 mod:' + off + ':' + body.length + ':' + crc32(body, 0, body.length).toString(16) + ':' + n + '\n';
    const h = enc.encode(head(enc.encode(head(0)).length + 2));
    const off = h.length;
    const program = new Uint8Array([...enc.encode(head(off)), ...body, ...enc.encode('*/\n')]);
    expect(enc.encode(head(off)).length).toBe(off);
    const m = createColdLoader({ program: area(program), build: 'b1', shared: sharedTable }).load<() => string>('mod');
    expect(m.ok ? m.value() : m.error).toBe('\u00e4'.repeat(700) + '\u20ac' + runs);
    // One byte changed anywhere, even in the strings' last window: refused.
    const bad = Uint8Array.from(program);
    bad[off + body.length - 3] = bad[off + body.length - 3]! ^ 0x01;
    expect(createColdLoader({ program: area(bad), build: 'b1', shared: sharedTable }).load('mod')).toEqual({ ok: false, error: 'cold code mod: corrupt on flash (CRC); flash the board again with ./flash.sh' });
  });

  it('says in one line that there is no stored program (a program run from a file)', () => {
    for (const program of [noProgram, area(new Uint8Array(0))]) {
      const m = createColdLoader({ program, build: built.build, shared: sharedTable }).load('help');
      expect(m).toEqual({ ok: false, error: 'cold code help: no program on flash to read it from (program run from a file?); flash the board again with ./flash.sh' });
    }
  });

  it('refuses a stored program without cold code', () => {
    const other = new TextEncoder().encode('print("another program");\n\0');
    const m = createColdLoader({ program: area(other), build: built.build, shared: sharedTable }).load('help');
    expect(m).toEqual({ ok: false, error: 'cold code help: the program on flash carries no cold code; flash the board again with ./flash.sh' });
  });

  it('refuses cold code of another build', () => {
    const m = createColdLoader({ program: area(bytes), build: '0badc0de', shared: sharedTable }).load('help');
    expect(m).toEqual({ ok: false, error: `cold code help: the program on flash is build ${built.build}, this one is 0badc0de; flash the board again with ./flash.sh` });
  });

  it('refuses a module whose bytes changed on flash, and still loads the others', () => {
    const bad = Uint8Array.from(bytes);
    const c = built.cold.find((x) => x.name === 'config')!;
    bad[c.offset + 100] = bad[c.offset + 100]! ^ 0x01;
    const cold = createColdLoader({ program: area(bad), build: built.build, shared: sharedTable });
    expect(cold.load('config')).toEqual({ ok: false, error: 'cold code config: corrupt on flash (CRC); flash the board again with ./flash.sh' });
    expect(cold.load<unknown>('help').ok).toBe(true);
  });

  it('names a module the build does not have', () => {
    expect(createColdLoader({ program: area(bytes), build: built.build, shared: sharedTable }).load('nope')).toEqual({ ok: false, error: `cold code nope: build ${built.build} has no module nope` });
  });
});

describe('the resident program never imports cold code', () => {
  it('fails the build when the resident entry imports a cold module statically', async () => {
    mkdirSync('dist/cold-test', { recursive: true });
    writeFileSync('dist/cold-test/leak.ts', "import { installCommands } from '../../src/console/commands';\nexport const x = installCommands;\n");
    await expect(buildBundle({ entry: 'dist/cold-test/leak.ts', outfile: 'dist/cold-test/leak.js' })).rejects.toThrow(
      /cold code imported by the resident program: .*src\/console\/commands\.ts/,
    );
  });

  it('fails the build when cold code uses what the engine lacks, checked before its names go to the string table', async () => {
    mkdirSync('dist/cold-test/lacking', { recursive: true });
    writeFileSync('dist/cold-test/lacking/bad.ts', 'export default (o: object, k: string): boolean => (Object as unknown as { hasOwn(o: object, k: string): boolean }).hasOwn(o, k);\n');
    // A table whose one cold module is that file (its path from src/).
    const residency = { ...loadResidency(), cold: { bad: { from: '../dist/cold-test/lacking/bad.ts', export: 'default', about: 'a test' } } };
    await expect(buildBundle({ residency, outfile: 'dist/cold-test/lacking.js' })).rejects.toThrow(/bad\.ts: Object\.hasOwn is missing on the device/);
  });

  it("fails the build when the resident program imports the agent part's code statically (it could never be let go)", async () => {
    mkdirSync('dist/cold-test', { recursive: true });
    writeFileSync('dist/cold-test/twice.ts', "import { createUplink } from '../../src/agent/uplink';\nimport { agentPart } from '../../src/parts';\nexport const x = [createUplink, agentPart];\n");
    await expect(buildBundle({ entry: 'dist/cold-test/twice.ts', outfile: 'dist/cold-test/twice.js' })).rejects.toThrow(
      /part 'agent' and the rest of the resident program both carry .*src\/agent\/uplink\.ts/,
    );
  });

  it("keeps the agent's own modules out of the rest of the resident program: they are in its part", () => {
    const resident = built.inputs.map((i) => i.path);
    for (const m of ['src/agent/agent.ts', 'src/agent/uplink.ts', 'src/agent/sampler.ts', 'src/sensors/index.ts', 'src/filters/index.ts', 'src/service/encode.ts', 'src/agent/watchdog.ts']) {
      expect(resident).not.toContain(m);
    }
    const text = readFileSync(built.outfile, 'utf8');
    // The part is a function expression of the program, in the table src/parts.ts reads.
    expect(text.slice(text.indexOf('*/')).match(/\bagent:\(?function\([\w$]+\)\{/g)).toHaveLength(1);
  });

  it('keeps every cold-only file out of the real resident program', () => {
    const resident = built.inputs.map((i) => i.path);
    // Cold-only: what src/residency.json classes cold, or host (on no program of the device).
    const classes = loadResidency().modules;
    const coldOnly = Object.keys(classes).filter((m) => classes[m] === 'cold' || classes[m] === 'host').map((m) => `src/${m}`);
    expect(coldOnly).toContain('src/console/cmd-config.ts');
    expect(resident.filter((p) => coldOnly.includes(p))).toEqual([]);
    // and the stubs that load them are there
    expect(resident).toContain('src/console/stubs.ts');
    expect(resident).toContain('src/cold.ts');
  });
});

describe('a module that would not fit the heap', () => {
  it('is refused in one line, before anything is read or evaluated', () => {
    const p = area(bytes);
    const help = built.cold.find((c) => c.name === 'help')!;
    const need = Math.ceil(COLD_HEAP_PER_BYTE * help.bytes);
    const cold = createColdLoader({ program: p, build: built.build, shared: sharedTable, room: () => need - 1 });
    const reads = p.reads;
    expect(cold.load('help')).toEqual({
      ok: false,
      error: `cold code help: not enough free heap now (${need - 1} B free, about ${need} B needed); try again in a minute, or after maintenance(), which boots without the agent`,
    });
    // Only the header was read to learn the size.
    expect(p.reads - reads).toBeLessThanOrEqual(2);
  });

  it('tells whether a module would load now, without reading or evaluating it', () => {
    const p = area(bytes);
    const help = built.cold.find((c) => c.name === 'help')!;
    const need = Math.ceil(COLD_HEAP_PER_BYTE * help.bytes);
    let room = need;
    const cold = createColdLoader({ program: p, build: built.build, shared: sharedTable, room: () => room });
    expect(cold.fits('help')).toBeUndefined();
    room = need - 1;
    expect(cold.fits('help')).toBe(`cold code help: not enough free heap now (${need - 1} B free, about ${need} B needed); try again in a minute, or after maintenance(), which boots without the agent`);
    expect(cold.fits('nothing')).toBe('cold code nothing: build ' + built.build + ' has no module nothing');
  });

  it('loads when the room is there, or when the platform cannot tell', () => {
    const help = built.cold.find((c) => c.name === 'help')!;
    expect(createColdLoader({ program: area(bytes), build: built.build, shared: sharedTable, room: () => Math.ceil(COLD_HEAP_PER_BYTE * help.bytes) }).load<unknown>('help').ok).toBe(true);
    expect(createColdLoader({ program: area(bytes), build: built.build, shared: sharedTable, room: () => undefined }).load<unknown>('help').ok).toBe(true);
  });
});
