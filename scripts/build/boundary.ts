// Finds every use of a Kaluma module or global outside src/ports/kaluma.
// Globals are found by symbol, not by text: an identifier counts when the
// type checker resolves it to a declaration in the Kaluma declarations file,
// so a property or local that happens to be called `delay` does not.
import ts from 'typescript';
import { KALUMA_MODULES } from './build';

const KALUMA_DTS = 'src/ports/kaluma/kaluma.d.ts';

export interface BoundaryUse {
  file: string;
  line: number;
  what: string;
}

export function findKalumaUses(rootNames: string[], isAllowed: (file: string) => boolean): BoundaryUse[] {
  const program = ts.createProgram([...rootNames, KALUMA_DTS, 'src/engine.d.ts'], {
    target: ts.ScriptTarget.ES2019,
    lib: ['lib.es2019.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
    resolveJsonModule: true,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    module: ts.ModuleKind.ESNext,
  });
  const checker = program.getTypeChecker();
  const uses: BoundaryUse[] = [];
  for (const sf of program.getSourceFiles()) {
    const file = sf.fileName.replace(/\\/g, '/');
    if (sf.isDeclarationFile || file.includes('/node_modules/') || isAllowed(file)) continue;
    const report = (node: ts.Node, what: string): void => {
      uses.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, what });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node) && KALUMA_MODULES.includes(node.text)) {
        const p = node.parent;
        const isImport = ts.isImportDeclaration(p) || ts.isExportDeclaration(p) || ts.isExternalModuleReference(p);
        const isRequire = ts.isCallExpression(p) && ts.isIdentifier(p.expression) && p.expression.text === 'require';
        if (isImport || isRequire) report(node, `module '${node.text}'`);
      }
      if (ts.isIdentifier(node)) {
        const sym = checker.getSymbolAtLocation(node);
        const decl = sym && sym.declarations && sym.declarations[0];
        if (decl && decl.getSourceFile().fileName.replace(/\\/g, '/').endsWith(KALUMA_DTS) && ts.isSourceFile(decl.parent.parent ?? decl.parent)) {
          report(node, `global '${node.text}'`);
        } else if (node.text === 'require' && ts.isCallExpression(node.parent) && node.parent.expression === node) {
          report(node, 'require()');
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return uses;
}
