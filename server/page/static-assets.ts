/**
 * The page's static files, read once from `server/page/static` under the package root (the
 * folder whose package.json is argus-supervisor), which is the same from the source tree, from
 * dist/ and from an installed package (package.json "files" lists the folder). Only files in
 * that folder with a known type are served, by their bare name: no path ever reaches the disk.
 * @module
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StaticAsset {
  type: string;
  body: Buffer;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export function packageRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'argus-supervisor') return dir;
    if (path.dirname(dir) === dir) throw new Error('argus-supervisor package root not found');
  }
}

export const staticDir = (root: string = packageRoot()) => path.join(root, 'server', 'page', 'static');

export function loadStaticAssets(dir: string = staticDir()): Map<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (type && /^[a-z0-9-]+\.[a-z]+$/.test(name)) assets.set(name, { type, body: readFileSync(path.join(dir, name)) });
  }
  return assets;
}
