/**
 * The PostgreSQL driven paths read what the database committed (driven-store.ts `read`), not
 * what the live actor holds: a fault planted in the database client, a document write that
 * commits and changes nothing (its UPDATE matches no row, the store believes it wrote), must
 * make a path disagree about the persisted snapshot. Paths from `start` run in plan order until
 * one disagrees; not those with INTENT_IN_DOUBT, whose crash leftovers the test itself writes
 * through the same client (the fault would remove the test's own setup, not the store's write).
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readPlan } from './driven-suite.js';
import { pathsSchema, type StoreChoice } from './driven-store.js';
import { drivenOnPostgres } from './on-postgres.js';
import { runPath } from './run-path.js';

const schema = pathsSchema();
let store: StoreChoice = { kind: 'file' };
beforeAll(async () => void (store = await schema.open()));
afterAll(() => schema.close());
afterEach(() => {
  vi.restoreAllMocks();
});

describe('a planted fault in the PostgreSQL store is caught by the driven paths', { timeout: 120_000 }, () => {
  it('a document write that commits without changing the row', async () => {
    const real = pg.Client.prototype.query as (...args: unknown[]) => unknown;
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      if (typeof args[0] === 'string' && /^UPDATE campaign_documents SET document/.test(args[0])) args[0] = `${args[0]} AND false`;
      return real.apply(this, args);
    } as never);
    let found: { target: string; problem: string } | null = null;
    for (const path of readPlan().paths.filter((p) => p.root === 'start' && drivenOnPostgres(p) && !p.steps.some((s) => s.event.type === 'INTENT_IN_DOUBT'))) {
      const result = await runPath(path, store);
      if (result.status !== 'disagree') continue;
      console.log(`caught by "${result.target}": ${result.problem}`);
      found = { target: result.target, problem: result.problem };
      break;
    }
    expect(found, 'a path that caught the lost document write').not.toBeNull();
    expect(found!.problem).toMatch(/^persisted (state|context) /);
  });
});
