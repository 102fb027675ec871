/**
 * The Foreman fence must be able to fail: dependency-cruiser follows only imports it can
 * resolve, so `import(['..', 'a2a', 'client.js'].join('/'))` would slip past the
 * foreman-cannot-reach-a2a rule. Every module under these folders may load others only by a
 * single string literal, which the layering rules can then see.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const FENCED_FOLDERS = ['adapters', 'services', 'persistence', 'machines'];

const isLiteral = (node: ts.Node | undefined): boolean =>
  node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node));

/** `line:text` for every dynamic load whose target is not one string literal. */
export function computedLoads(source: string, fileName = 'x.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const report = (node: ts.Node, what: string) => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    found.push(`${line + 1}: ${what}: ${node.getText(file).slice(0, 80)}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const [first] = node.arguments;
      if (callee.kind === ts.SyntaxKind.ImportKeyword && !isLiteral(first)) report(node, 'computed import()');
      if (ts.isIdentifier(callee) && callee.text === 'require' && !isLiteral(first)) report(node, 'computed require()');
      if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'require' && !isLiteral(first)) report(node, 'computed require()');
    }
    // A require built at run time loads anything: forbidden outright here.
    if (ts.isIdentifier(node) && node.text === 'createRequire') report(node, 'createRequire');
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFilesUnder(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('the module fence', () => {
  it('finds computed loads and accepts literal ones (the scanner itself can fail)', () => {
    const planted = [
      "export const load = () => import(['..', 'a2a', 'client.js'].join('/'));",
      'const where = "../a2a/client.js"; await import(where);',
      'await import(`../${"a2a"}/client.js`);',
      'const m = require(name);',
      'const m = module.require(name);',
      "import { createRequire } from 'node:module';",
    ];
    for (const source of planted) expect(computedLoads(source), source).toHaveLength(1);
    expect(computedLoads("await import('./literal.js'); await import(`./also-literal.js`); require('node:fs');")).toEqual([]);
  });

  it.each(FENCED_FOLDERS)('no module under %s/ loads another by a computed name', (folder) => {
    const files = tsFilesUnder(path.join(REPO_ROOT, folder));
    expect(files.length).toBeGreaterThan(0);
    const offences = files.flatMap((file) =>
      computedLoads(readFileSync(file, 'utf8'), file).map((hit) => `${path.relative(REPO_ROOT, file)}:${hit}`),
    );
    expect(offences).toEqual([]);
  });
});
