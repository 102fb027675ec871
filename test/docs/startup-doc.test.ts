/**
 * docs/configuration.md tells the truth about start-up failures: every code the CLI can print
 * (config problems, owner-lock refusals, listen failures, the database's) has a row in "When start-up stops",
 * and the "Real output" examples are what the built CLI prints today, line for line.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, REPO_ROOT } from '../fixtures/supervisor-harness.js';
import { recordSyncOutput } from '../fixtures/child-output.js';
import { removeScratch } from '../fixtures/scratch.js';
import { SECRET_FILE_REFUSALS } from '../../services/runtime/credential-files.js';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');
const CONFIG_MD = read('docs/configuration.md');

/** Codes from the sources that print them: the ConfigProblemCode union, startup.ts, the owner lock. */
function codesInSource(): string[] {
  const union = /export type ConfigProblemCode =([^;]+);/.exec(read('services/config/config.ts'))?.[1] ?? '';
  const config = [...union.matchAll(/'([a-z0-9_]+)'/g)].map((m) => m[1]!);
  const startup = [...read('bin/commands/startup.ts').matchAll(/code: '([a-z0-9_]+)'/g)].map((m) => m[1]!);
  const owner = [...read('persistence/owner-lock.ts').matchAll(/refusal\('([a-z0-9_]+)'/g)].map((m) => m[1]!);
  const secretFiles = Object.values(SECRET_FILE_REFUSALS).flatMap((codes) => Object.values(codes));
  // `serve` with ARGUS_SUPERVISOR_DATABASE_URL: the database's start-up codes (persistence/postgres/database.ts).
  const databaseUnion = /export type DatabaseErrorCode =([^;]+);/.exec(read('persistence/postgres/database.ts'))?.[1] ?? '';
  const database = [...databaseUnion.matchAll(/'([a-z0-9_]+)'/g)].map((m) => m[1]!);
  expect(database).toContain('database_unreachable');
  return [...new Set([...config, ...startup, ...owner, ...secretFiles, ...database])];
}

/** The first column of every table row in the "When start-up stops" section. */
function documentedCodes(): Set<string> {
  const section = CONFIG_MD.split('## When start-up stops')[1]?.split('\n## ')[0] ?? '';
  return new Set([...section.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1]!));
}

interface Example {
  env: Record<string, string>;
  lines: string[];
}

/** The `$ VAR=value … npx argus-supervisor serve` examples of the "Real output" block. */
function realOutputExamples(): Example[] {
  const block = /Real output[^\n]*\n\n```\n([\s\S]*?)```/.exec(CONFIG_MD)?.[1] ?? '';
  const examples: Example[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('$ ')) {
      const assignments = line.slice(2).split(' npx argus-supervisor serve')[0]!;
      const env = Object.fromEntries([...assignments.matchAll(/([A-Z_]+)=('([^']*)'|\S+)/g)].map((m) => [m[1]!, m[3] ?? m[2]!]));
      examples.push({ env, lines: [] });
    } else if (line.trim() !== '') {
      examples.at(-1)?.lines.push(line);
    }
  }
  return examples;
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'startup-doc-'));
afterAll(() => removeScratch(scratch));

describe('docs/configuration.md start-up failures', () => {
  it('has a row for every code the CLI can print', () => {
    const source = codesInSource();
    expect(source.length).toBeGreaterThan(10);
    const documented = documentedCodes();
    expect(source.filter((code) => !documented.has(code))).toEqual([]);
  });

  it('shows what the built CLI prints for its examples, and exit status 2', () => {
    const examples = realOutputExamples();
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const [i, example] of examples.entries()) {
      const child = recordSyncOutput(
        `startup-doc-${i}`,
        spawnSync(process.execPath, [CLI_ENTRY, 'serve'], {
          env: { PATH: process.env.PATH ?? '', ARGUS_SUPERVISOR_STATE_ROOT: path.join(scratch, `root-${i}`), ...example.env },
          encoding: 'utf8',
          timeout: 10_000,
        }),
      );
      expect({ env: example.env, status: child.status, stderr: child.stderr.trimEnd().split('\n') }).toEqual({
        env: example.env,
        status: 2,
        stderr: example.lines,
      });
    }
  });
});
