/**
 * Child processes cannot run .ts on Node 20, and dist/ may be stale or mid-build by someone
 * else. So the cross-process tests transpile persistence/ (and the relative modules it
 * imports) into a private temp folder with the TypeScript compiler API, with a node_modules
 * symlink so bare imports (lowdb, zod, proper-lockfile) resolve to the repo's packages.
 */
import { mkdir, mkdtemp, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export async function buildPersistence(): Promise<string> {
  const out = await mkdtemp(path.join(os.tmpdir(), 'argus-persistence-build-'));
  await writeFile(path.join(out, 'package.json'), '{"type":"module"}\n');
  await symlink(path.join(repoRoot, 'node_modules'), path.join(out, 'node_modules'), 'dir');
  const queue = (await readdir(path.join(repoRoot, 'persistence'))).filter((f) => f.endsWith('.ts')).map((f) => `persistence/${f}`);
  const done = new Set<string>();
  while (queue.length > 0) {
    const rel = queue.pop()!;
    if (done.has(rel)) continue;
    done.add(rel);
    const source = await readFile(path.join(repoRoot, rel), 'utf8');
    for (const match of source.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
      queue.push(path.posix.normalize(path.posix.join(path.posix.dirname(rel), `${match[1]}.ts`)));
    }
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      fileName: rel,
    });
    const target = path.join(out, rel.replace(/\.ts$/, '.js'));
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, outputText);
  }
  return out;
}
