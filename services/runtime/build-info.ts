/**
 * The source identity /health reports: package version and the exact commit SHA, so a
 * deployment can be verified against the SHA that was meant to ship.
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BuildInfo {
  version: string;
  sha: string;
}

let cached: BuildInfo | null = null;

export function buildInfo(): BuildInfo {
  if (cached) return cached;
  const root = findPackageRoot();
  let version = '0.0.0';
  try {
    version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    // keep the placeholder; /health still answers
  }
  cached = { version, sha: process.env.ARGUS_SUPERVISOR_SOURCE_SHA || readGitSha(root) || 'unknown' };
  return cached;
}

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'argus-supervisor') return dir;
    } catch {
      // keep walking up
    }
    dir = dirname(dir);
  }
  return process.cwd();
}

/** Reads HEAD without spawning git (the container may not have it). */
function readGitSha(root: string): string | null {
  try {
    const head = readFileSync(join(root, '.git', 'HEAD'), 'utf8').trim();
    if (/^[0-9a-f]{40}$/.test(head)) return head;
    const ref = head.replace(/^ref: /, '');
    try {
      return readFileSync(join(root, '.git', ref), 'utf8').trim();
    } catch {
      const packed = readFileSync(join(root, '.git', 'packed-refs'), 'utf8');
      const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
      return line ? line.split(' ')[0]! : null;
    }
  } catch {
    return null;
  }
}
