/**
 * Where /health's `sha` comes from: the environment, else the image's build-info.json, else the
 * checkout's .git (a clone's folder or a worktree's `gitdir:` file), else `unknown`. Each source
 * is laid out in a scratch package root, so every step of the order is seen to win and to yield.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILD_INFO_FILE, buildInfo, resolveBuildInfo } from '../../services/runtime/build-info.js';
import { recordSyncOutput } from '../fixtures/child-output.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';
import { REPO_ROOT } from '../fixtures/supervisor-harness.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const sha = (digit: string) => digit.repeat(40);
const ENV_SHA = sha('e');
const FILE_SHA = sha('f');
const HEAD_SHA = sha('a');
const BRANCH_SHA = sha('b');
const PACKED_SHA = sha('c');

async function packageRoot(): Promise<string> {
  const root = await scratchDir('argus-build-info-');
  cleanups.push(() => removeScratch(root));
  await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'argus-supervisor', version: '9.8.7' }));
  return root;
}

async function put(root: string, rel: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await writeFile(path.join(root, rel), text);
}

const buildInfoFile = (value: unknown) => JSON.stringify({ source_sha: value });

describe('build info: the SHA /health reports', () => {
  it('takes ARGUS_SUPERVISOR_SOURCE_SHA over build-info.json and .git', async () => {
    const root = await packageRoot();
    await put(root, BUILD_INFO_FILE, buildInfoFile(FILE_SHA));
    await put(root, '.git/HEAD', `${HEAD_SHA}\n`);
    expect(resolveBuildInfo(root, { ARGUS_SUPERVISOR_SOURCE_SHA: ENV_SHA })).toEqual({ version: '9.8.7', sha: ENV_SHA });
  });

  it('takes build-info.json (the image build wrote it) over .git when the environment says nothing', async () => {
    const root = await packageRoot();
    await put(root, BUILD_INFO_FILE, buildInfoFile(FILE_SHA));
    await put(root, '.git/HEAD', `${HEAD_SHA}\n`);
    expect(resolveBuildInfo(root, {}).sha).toBe(FILE_SHA);
    expect(resolveBuildInfo(root, { ARGUS_SUPERVISOR_SOURCE_SHA: '' }).sha).toBe(FILE_SHA);
  });

  it.each([
    ['a short SHA', buildInfoFile('abc123')],
    ['an upper-case SHA', buildInfoFile(FILE_SHA.toUpperCase())],
    ['41 hex digits', buildInfoFile(`${FILE_SHA}0`)],
    ['a number', buildInfoFile(12345)],
    ['no source_sha', JSON.stringify({ sha: FILE_SHA })],
    ['not JSON', `source_sha=${FILE_SHA}`],
  ])('ignores a build-info.json holding %s and falls through to .git', async (_label, text) => {
    const root = await packageRoot();
    await put(root, BUILD_INFO_FILE, text);
    await put(root, '.git/HEAD', `${HEAD_SHA}\n`);
    expect(resolveBuildInfo(root, {}).sha).toBe(HEAD_SHA);
  });

  it('reads a clone: a branch ref, then packed-refs when the ref is not loose', async () => {
    const loose = await packageRoot();
    await put(loose, '.git/HEAD', 'ref: refs/heads/main\n');
    await put(loose, '.git/refs/heads/main', `${BRANCH_SHA}\n`);
    expect(resolveBuildInfo(loose, {}).sha).toBe(BRANCH_SHA);

    const packed = await packageRoot();
    await put(packed, '.git/HEAD', 'ref: refs/heads/main\n');
    await put(packed, '.git/packed-refs', `# pack-refs with: peeled fully-peeled sorted\n${BRANCH_SHA} refs/heads/other\n${PACKED_SHA} refs/heads/main\n`);
    expect(resolveBuildInfo(packed, {}).sha).toBe(PACKED_SHA);
  });

  it('reads a worktree: .git is a gitdir file and branch refs live in the common folder', async () => {
    const root = await packageRoot();
    await put(root, 'common/worktrees/wt/HEAD', 'ref: refs/heads/h-branch\n');
    await put(root, 'common/worktrees/wt/commondir', '../..\n');
    await put(root, 'common/refs/heads/h-branch', `${BRANCH_SHA}\n`);
    await put(root, '.git', `gitdir: ${path.join(root, 'common/worktrees/wt')}\n`);
    expect(resolveBuildInfo(root, {}).sha).toBe(BRANCH_SHA);
  });

  it('says unknown when nothing names the source (no env, no file, no .git, or a ref that is not a SHA)', async () => {
    const bare = await packageRoot();
    expect(resolveBuildInfo(bare, {})).toEqual({ version: '9.8.7', sha: 'unknown' });
    const broken = await packageRoot();
    await put(broken, '.git/HEAD', 'ref: refs/heads/main\n');
    await put(broken, '.git/refs/heads/main', 'not a sha\n');
    expect(resolveBuildInfo(broken, {}).sha).toBe('unknown');
  });

  it('reads this checkout as git itself does, and the process-wide value is the same', () => {
    const run = recordSyncOutput('git-rev-parse', { stdout: execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }), stderr: '' });
    const head = run.stdout.trim();
    expect(head).toMatch(/^[0-9a-f]{40}$/);
    expect(resolveBuildInfo(REPO_ROOT, {}).sha).toBe(head);
    // The cached reader honours the environment of this process (vitest sets no SHA).
    expect(buildInfo().sha).toBe(process.env.ARGUS_SUPERVISOR_SOURCE_SHA || head);
  });
});
