/** The v1 documents in test/persistence/fixtures/v1 (written by the release that owns v1). */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const V1_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'v1');

export const v1FixtureNames = (): string[] =>
  readdirSync(V1_DIR).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length)).sort();

export const v1FixtureText = (name: string): string => readFileSync(path.join(V1_DIR, `${name}.json`), 'utf8');

/** The raw JSON (untyped: it is what a v1 build left on disk). */
export const v1Fixture = (name: string): Record<string, unknown> => JSON.parse(v1FixtureText(name)) as Record<string, unknown>;
