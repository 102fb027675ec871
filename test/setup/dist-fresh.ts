/**
 * Global setup: refuse to run against a stale build. Some tests run `dist/` in child
 * processes (chaos, crash-restart, the bench, `serve`), so after a source edit without
 * `npm run build` they would test old code and pass. One line says what to do.
 * Only the built folders count: editing a test never makes dist stale.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the build compiles: the `include` of tsconfig.build.json. */
export async function builtSources(root: string): Promise<string[]> {
  return (JSON.parse(await readFile(path.join(root, 'tsconfig.build.json'), 'utf8')) as { include: string[] }).include;
}

async function tsFiles(root: string, rel: string): Promise<string[]> {
  const full = path.join(root, rel);
  const info = await stat(full).catch(() => null);
  if (!info) return [];
  if (info.isFile()) return rel.endsWith('.ts') && !rel.endsWith('.d.ts') ? [rel] : [];
  const entries = await readdir(full);
  return (await Promise.all(entries.map((e) => tsFiles(root, path.join(rel, e))))).flat();
}

/** Why `dist/` cannot be trusted, in one line, or null when every source is older than its output. */
export async function staleDistReason(root: string, sources: string[]): Promise<string | null> {
  const files = (await Promise.all(sources.map((s) => tsFiles(root, s)))).flat().sort();
  for (const rel of files) {
    const built = path.join('dist', rel.replace(/\.ts$/, '.js'));
    const [src, out] = await Promise.all([stat(path.join(root, rel)), stat(path.join(root, built)).catch(() => null)]);
    if (!out) return `dist is stale: run npm run build (${built} is missing)`;
    if (src.mtimeMs > out.mtimeMs) return `dist is stale: run npm run build (${rel} is newer than ${built})`;
  }
  return null;
}

export async function setup(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const reason = await staleDistReason(root, await builtSources(root));
  if (reason === null) return;
  // Exit before any worker starts: a thrown error would be buried under a stack and a
  // misleading "no test files found".
  process.stderr.write(`${reason}\n`);
  process.exit(1);
}
