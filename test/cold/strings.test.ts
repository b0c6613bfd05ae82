// Cold code's strings taken out of its code (scripts/build/cold-strings.ts): the
// code must do exactly what it did, with no string literal or property name
// left in it for the engine to keep.
import { parse } from 'acorn';
import { simple } from 'acorn-walk';
import { describe, expect, it } from 'vitest';
import { externalizeStrings, namesIn, tableText } from '../../scripts/build/cold-strings';

/** Runs a module's function expression as the loader does. */
function run(code: string, table: string[]): unknown {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const make = new Function('return ' + code)() as (shared: unknown, s: string[]) => unknown;
  return make({ lib: { twice: (x: number) => 2 * x } }, table);
}

const SAMPLE = `(function(__shared,__s){
  var o = { alpha: 1, "beta gamma": 2, get delta() { return "d" }, epsilon() { return this.alpha }, __proto__: { inherited: "yes" } };
  var alpha = 5;
  var short = { alpha };
  var { alpha: a2, zeta = "z" } = o;
  class K { constructor() { this.name = "k" } method() { return "m" + this.name } static make() { return new K() } }
  function kind(x) { switch (typeof x) { case"string": return"text"; case"number": return"number"; default: return"other" } }
  var isIn = "alpha"in o;
  return { a: o.alpha, b: o["beta gamma"], d: o.delta, e: o.epsilon(), p: o.inherited, s: short.alpha, a2: a2, z: zeta,
    k: K.make().method(), kinds: [kind("x"), kind(1), kind(null)], isIn: isIn, t: \`t\${o.alpha}\`, lib: __shared["lib"].twice(21), q: "it's \\"quoted\\" caf\\u00e9" };
})`;

describe('strings taken out of cold code', () => {
  it('leaves code that does the same', () => {
    const before = run(SAMPLE, []);
    const ex = externalizeStrings(SAMPLE);
    expect(run(ex.code, ex.table)).toEqual(before);
    expect(before).toMatchObject({ a: 1, b: 2, d: 'd', e: 1, p: 'yes', s: 5, a2: 1, z: 'z', k: 'mk', kinds: ['text', 'number', 'other'], isIn: true, lib: 42 });
  });

  it('leaves no string literal and no dotted or literal property name, except what must stay', () => {
    const ex = externalizeStrings(SAMPLE);
    const left: string[] = [];
    simple(parse(ex.code, { ecmaVersion: 2019 }), {
      Literal(n) {
        if (typeof (n as { value: unknown }).value === 'string') left.push(String((n as { value: unknown }).value));
      },
      MemberExpression(n) {
        if (!(n as { computed: boolean }).computed) left.push('.' + (n as unknown as { property: { name: string } }).property.name);
      },
      Property(n) {
        const p = n as unknown as { computed: boolean; key: { name?: string; value?: unknown } };
        if (!p.computed) left.push('key ' + String(p.key.name ?? p.key.value));
      },
    });
    // __proto__ sets the prototype only as a literal key; template parts stay.
    expect(left).toEqual(['key __proto__']);
    expect(ex.table).toContain('beta gamma');
    expect(ex.table).toContain('alpha');
    expect(new Set(ex.table).size).toBe(ex.table.length);
  });

  it('writes the table as one ASCII line that cannot end the comment it sits in', () => {
    const t = tableText(['*/', 'caf\u00e9', 'line\nbreak', 'a/b']);
    expect(t).not.toMatch(/[^\x20-\x7e]/);
    expect(t).not.toContain('*/');
    expect(JSON.parse(t)).toEqual(['*/', 'caf\u00e9', 'line\nbreak', 'a/b']);
  });

  it("takes the resident program's names as kept: its variables, string literals, dotted property names and object keys", () => {
    const names = namesIn('var box = { kind: 1, "quoted key": 2, m() {} }; box.level = box["computed"] + "text"; class C { method() {} }');
    for (const n of ['box', 'kind', 'level', 'm', 'method', 'C', 'computed', 'text', 'quoted key']) expect(names.has(n), n).toBe(true);
    // What the resident program names stays a name in cold code; the rest is read from the table.
    const ex = externalizeStrings('(function(__shared,__s){ var o = { kind: 1, other: 2 }; return o.level + o.fresh; })', names);
    expect(ex.table).toEqual(['other', 'fresh']);
    expect(ex.code).toContain('kind: 1');
    expect(ex.code).toContain('.level');
  });
});
