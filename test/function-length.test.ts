// No function of src/ runs over 80 lines, except a module's factory (a
// module-level create*/open*/start* that makes the module's object, and the
// boot, bootWith): what a factory holds is its object's parts, each a
// function of its own that this test measures too.
import ts from 'typescript';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 80;
const FACTORY = /^(create|open|start)[A-Z]\w*$|^bootWith$/;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out.sort();
}

/** Every function over MAX_LINES lines that is not a module's factory, as 'file:line name (n lines)'. */
function tooLong(file: string, text = readFileSync(file, 'utf8')): string[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node, moduleLevel: boolean): void => {
    if (ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n) || ts.isArrowFunction(n) || ts.isMethodDeclaration(n)) {
      const first = src.getLineAndCharacterOfPosition(n.getStart()).line;
      const lines = src.getLineAndCharacterOfPosition(n.getEnd()).line - first + 1;
      const name = ts.isFunctionDeclaration(n) && n.name ? n.name.text : ts.isMethodDeclaration(n) ? n.name.getText() : '(anonymous)';
      const factory = moduleLevel && ts.isFunctionDeclaration(n) && FACTORY.test(name);
      if (lines > MAX_LINES && !factory) found.push(`${file}:${first + 1} ${name} (${lines} lines)`);
      ts.forEachChild(n, (c) => visit(c, false));
      return;
    }
    ts.forEachChild(n, (c) => visit(c, moduleLevel));
  };
  visit(src, true);
  return found;
}

describe('function length', () => {
  it(`no function of src/ outside a module's factory runs over ${MAX_LINES} lines`, () => {
    expect(sources('src').flatMap((f) => tooLong(f))).toEqual([]);
  });

  it('counts an inner function of a factory, and a long function that is no factory', () => {
    const body = Array.from({ length: MAX_LINES }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = `export function createThing() {\n  const inner = () => {\n${body}\n  };\n  return inner;\n}\nexport function helper() {\n${body}\n}\n`;
    expect(tooLong('x.ts', text)).toEqual(['x.ts:2 (anonymous) (82 lines)', 'x.ts:86 helper (82 lines)']);
  });
});
