import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBundle } from '../scripts/build/build';
import { checkBundle } from '../scripts/build/compat';

// Compiles a snippet the way a careless build would (target left above
// es2019), so the check sees the syntax the engine rejects.
async function bundleAt(target: string, code: string): Promise<string> {
  const r = await build({ stdin: { contents: code, loader: 'ts' }, write: false, format: 'iife', target, minify: false });
  return r.outputFiles[0]!.text;
}

describe('device bundle compatibility check', () => {
  let bundle = '';
  beforeAll(async () => {
    await buildBundle({ outfile: 'dist/test-agent.js' });
    bundle = readFileSync('dist/test-agent.js', 'utf8');
  });

  it('accepts the real bundle', () => {
    expect(checkBundle(bundle)).toEqual([]);
  });

  it('rejects optional chaining left in by an es2020 build', async () => {
    const out = await bundleAt('es2020', 'const a: any = (globalThis as any).x; (globalThis as any).y = a?.b;');
    expect(out).toContain('?.');
    expect(checkBundle(out)[0]).toMatch(/^syntax the engine does not accept/);
  });

  it('rejects logical assignment, private fields and class static blocks', () => {
    expect(checkBundle('var a; a ??= 1;')).toHaveLength(1);
    // ES2019 that the engine's parser refuses (each a SyntaxError on the device's engine) and what it takes.
    for (const bad of ['var f = e=>({b:r=>1});', 'var f = function(){return ({b:r=>1})};', 'var x = ({b:r=>1}).b;', 'var x = ([r=>1]);', 'var f = e=>({b:async(r)=>1});', 'var f = e=>({a:1,b:{c:r=>1}});']) {
      expect(checkBundle(bad), bad).toEqual([expect.stringMatching(/^an arrow function 'r=>1|^an arrow function 'async\(r\)=>1/)]);
    }
    for (const good of ['var f = e=>({b:(r,s)=>1});', 'var f = e=>({b:()=>1});', 'var f = e=>({b(r){return r}});', 'var f = e=>({a:g(r=>1)});', 'var f = e=>(0,{b:r=>1});', 'var f = e=>[{b:r=>1}];', 'var f = e=>({b:(r=>1)});', 'var f = function(){return {b:r=>1}};']) {
      expect(checkBundle(good), good).toEqual([]);
    }
    expect(checkBundle('class A { #x = 1; }')).toHaveLength(1);
    expect(checkBundle('class A { static { } }')).toHaveLength(1);
  });

  it('names each missing built-in and console method', () => {
    const code = [
      'Promise.allSettled([]);', 'Object.hasOwn({}, "a");', 'console.warn("x");', '[1].at(0);',
      'structuredClone({});', 'queueMicrotask(function(){});', 'encodeURIComponent("e");', 'module.exports = 1;',
    ].join('\n');
    expect(checkBundle(code)).toEqual([
      'Promise.allSettled is missing on the device (line 1:0)',
      'Object.hasOwn is missing on the device (line 2:0)',
      'console.warn is missing on the device (line 3:0)',
      '.at() is missing on the device (line 4:0)',
      'structuredClone is missing on the device (line 5:0)',
      'queueMicrotask is missing on the device (line 6:0)',
      'encodeURIComponent is missing on the device (line 7:0)',
      'module.exports is missing on the device (line 8:0)',
    ]);
  });

  it('rejects regex named groups, lookbehind and property escapes, literal or constructed', () => {
    expect(checkBundle('var r = /(?<y>\\d+)/;')).toEqual(['regex named group or lookbehind (line 1:8)']);
    expect(checkBundle('var r = /(?<=a)b/;')).toEqual(['regex named group or lookbehind (line 1:8)']);
    expect(checkBundle('var r = new RegExp("\\\\p{L}", "u");')).toEqual(['regex \\p{...} property escape (line 1:8)']);
  });

  it('rejects non-ASCII text and NUL bytes', () => {
    expect(checkBundle('var s = "\u00e9";')).toEqual(['non-ASCII character at 9']);
    expect(checkBundle('var s = 1;\u0000')[0]).toBe('NUL byte at 10: the program is stored NUL-terminated');
  });
});

describe('lint on device code', () => {
  it('rejects optional chaining and logical assignment written in src/', async () => {
    const { ESLint } = await import('eslint');
    const { writeFileSync, rmSync } = await import('node:fs');
    // A real file under src/ so the type-aware lint config applies to it.
    const probe = 'src/zz-lint-probe.ts';
    writeFileSync(probe, 'export function f(a: { b?: { c: number } }): number {\n  let x = 0;\n  x ||= 1;\n  return (a.b?.c ?? 0) + x;\n}\n');
    try {
      const [r] = await new ESLint().lintFiles([probe]);
      const ids = r!.messages.map((m) => `${m.line}:${m.ruleId ?? ''}:${m.message}`);
      expect(ids).toEqual([
        '3:no-restricted-syntax:||= is a SyntaxError on the device.',
        '4:no-restricted-syntax:Optional chaining (?.) is a SyntaxError on the device.',
      ]);
    } finally {
      rmSync(probe, { force: true });
    }
  });
});
