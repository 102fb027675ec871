import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** Finds package.json walking up from this file (works from source and from dist/). */
export function readPackageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'argus-supervisor' && pkg.version) return pkg.version;
    } catch {
      // not here; keep walking up
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}
