/**
 * What the end-of-run canary scan relies on, checked in the tests' own source so a new test
 * cannot quietly step outside it: credentials come from canary(), scratch folders are left for
 * the scan (removeScratch), and every child process has its output recorded.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TEST_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.(ts|mjs)$/.test(e.name) ? [full] : [];
  });
}

const files = sources(TEST_ROOT).map((file) => ({ rel: path.relative(TEST_ROOT, file), text: readFileSync(file, 'utf8') }));
/** The files that define the mechanism, or describe it, may name what they forbid. */
const MECHANISM = new Set(['fixtures/scratch.ts', 'fixtures/canary.ts', 'setup/canary-scan.ts', 'setup/scan-reach.test.ts', 'setup/canary-match.test.ts']);
const offenders = (pattern: RegExp) =>
  files.filter((f) => !MECHANISM.has(f.rel)).flatMap((f) => f.text.split('\n').flatMap((line, i) => (pattern.test(line) ? [`${f.rel}:${i + 1}: ${line.trim()}`] : [])));

describe('the canary scan sees what the tests produce', () => {
  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it('no test removes files or folders itself (removeScratch leaves them for the scan)', () => {
    expect(offenders(/\b(?:rm|rmSync|rmdir|rmdirSync)\s*\(/)).toEqual([]);
  });

  it('every file that starts a child process records its output', () => {
    const spawning = files.filter((f) => !MECHANISM.has(f.rel) && /\b(?:spawn|spawnSync|fork|exec|execFile|execSync|execFileSync)\s*\(/.test(f.text.replace(/\/[^/\n]+\/[dgimsuy]*\.exec\(/g, '')));
    expect(spawning.length).toBeGreaterThanOrEqual(5); // harness, cross-process, bench, chaos, simulate
    expect(spawning.filter((f) => !/\brecord(?:Child|Sync)Output\(/.test(f.text)).map((f) => f.rel)).toEqual([]);
  });

  it('no credential is a literal: each comes from canary()', () => {
    const literal = [
      /\b[A-Z0-9_]*(?:TOKEN|KEY|SECRET|PASSWORD)[A-Z0-9_]*\s*=\s*['"`]/, // const TOKEN = '…'
      /(?:\b(?:token|apiKey|api_key|password|secret)|['"](?:x-api-key|authorization)['"]|\b[A-Z0-9_]*(?:_TOKEN|_API_KEY|_SECRET|_PASSWORD))\s*:\s*['"`][^'"`[$]/, // { token: '…' }
      /['"`](?:Bearer|Basic) [A-Za-z0-9._~+/-]+=*['"`]/, // 'Bearer …'
      /(?<!canary\()['"][^'"\s]*(?:secret|s3cr3t)[^'"\s]*[-0-9][^'"\s]*['"]/i, // 'tok-SECRET-1234'
    ];
    expect(literal.flatMap((pattern) => offenders(pattern))).toEqual([]);
  });
});
