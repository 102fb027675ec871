/**
 * The source identity /health reports: package version and the exact commit SHA, so a
 * deployment can be verified against the SHA that was meant to ship (scripts/smoke).
 * The SHA comes from, in order: `ARGUS_SUPERVISOR_SOURCE_SHA` (the operator's explicit word),
 * `build-info.json` at the package root (written by the image build from `ARG SOURCE_SHA`:
 * an image has no .git), the checkout's `.git`, else `unknown`.
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BuildInfo {
  version: string;
  sha: string;
}

/** The file the image build writes at the package root: `{"source_sha": "<40 hex>"}`. */
export const BUILD_INFO_FILE = 'build-info.json';

const FULL_SHA = /^[0-9a-f]{40}$/;

let cached: BuildInfo | null = null;

/** This process's identity, read once (the files do not change under a running server). */
export function buildInfo(): BuildInfo {
  cached ??= resolveBuildInfo(findPackageRoot(), process.env);
  return cached;
}

/** The identity of the package at `root` under `env`, read now (tests call this directly). */
export function resolveBuildInfo(root: string, env: NodeJS.ProcessEnv): BuildInfo {
  let version = '0.0.0';
  try {
    version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    // keep the placeholder; /health still answers
  }
  return { version, sha: env.ARGUS_SUPERVISOR_SOURCE_SHA || readBuildInfoSha(root) || readGitSha(root) || 'unknown' };
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

/** `source_sha` of build-info.json; a file that is absent, unparsable or not a full SHA counts as none. */
function readBuildInfoSha(root: string): string | null {
  try {
    const info = JSON.parse(readFileSync(join(root, BUILD_INFO_FILE), 'utf8')) as { source_sha?: unknown };
    return typeof info.source_sha === 'string' && FULL_SHA.test(info.source_sha) ? info.source_sha : null;
  } catch {
    return null;
  }
}

/**
 * Reads HEAD without spawning git (the container may not have it). `.git` is a folder in a
 * clone and a `gitdir:` file in a worktree, whose branch refs live in the common folder.
 */
function readGitSha(root: string): string | null {
  try {
    let gitDir = join(root, '.git');
    let commonDir = gitDir;
    const pointer = readText(gitDir);
    if (pointer !== null) {
      const target = pointer.replace(/^gitdir: /, '');
      gitDir = isAbsolute(target) ? target : join(root, target);
      const common = readText(join(gitDir, 'commondir'));
      commonDir = common === null ? gitDir : isAbsolute(common) ? common : join(gitDir, common);
    }
    const head = readText(join(gitDir, 'HEAD'));
    if (head === null) return null;
    if (FULL_SHA.test(head)) return head;
    if (!head.startsWith('ref: ')) return null;
    const ref = head.slice('ref: '.length);
    const loose = readText(join(gitDir, ref)) ?? readText(join(commonDir, ref));
    if (loose !== null) return FULL_SHA.test(loose) ? loose : null;
    const packed = readText(join(commonDir, 'packed-refs')) ?? '';
    const sha = packed.split('\n').find((l) => l.endsWith(` ${ref}`))?.split(' ')[0];
    return sha && FULL_SHA.test(sha) ? sha : null;
  } catch {
    return null;
  }
}

/** A file's trimmed text, or null when it is missing or is not a file. */
function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}
