/**
 * Counts the SQL statements a replica process sends (one statement = one round trip), by kind
 * and by what sent it. Installed once, in the replica child of `npm run bench -- --replicas`,
 * before any pool exists: it wraps `pg.Client.prototype.query`, which every statement goes
 * through (the pool's `query` checks a client out and calls it; the relay's LISTEN client is a
 * plain `pg.Client`). The TCP/auth handshake is not a query and is not counted.
 *
 * "What sent it" is an AsyncLocalStorage tag: a sweep runs inside `tagged('sweep', …)`, so a
 * statement issued on its behalf carries that tag; the ownership beat and the rebalance timers
 * were started outside any tag and count as `background`. One caveat, said plainly: when the
 * pool is exhausted, pg-pool hands a client to a waiting caller from another caller's release,
 * and the statement then runs in the releaser's context. The per-kind totals of a window do not
 * depend on that attribution, and the benchmark reports them too.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

export type StatementKind =
  | 'ownership_beat'
  | 'ownership_claim'
  | 'ownership_release'
  | 'ownership_read'
  | 'placement'
  | 'document_read'
  | 'document_write'
  | 'document_fence_check'
  | 'transaction_control'
  | 'relay'
  | 'other';

/** Tag → kind → statements sent. */
export type StatementCounts = Record<string, Partial<Record<StatementKind, number>>>;

const tags = new AsyncLocalStorage<string>();
const counts = new Map<string, Map<StatementKind, number>>();
let installed = false;

/** Which part of the supervisor a statement belongs to, from its text (the SQL lives in persistence/postgres/). */
export function statementKind(sql: string): StatementKind {
  const text = sql.trim();
  if (/^(BEGIN|COMMIT|ROLLBACK)\b/i.test(text)) return 'transaction_control';
  if (/WITH beat AS/i.test(text)) return 'ownership_beat';
  if (/INSERT INTO campaign_owner/i.test(text)) return 'ownership_claim';
  if (/UPDATE campaign_owner SET holder = NULL/i.test(text)) return 'ownership_release';
  if (/FROM campaign_owner[\s\S]*FOR SHARE/i.test(text)) return 'document_fence_check';
  if (/live_replicas/i.test(text)) return 'placement';
  if (/^(INSERT|UPDATE|DELETE)\b[\s\S]*campaign_documents/i.test(text)) return 'document_write';
  if (/campaign_documents/i.test(text)) return 'document_read';
  if (/campaign_commands|pg_notify|^LISTEN\b|^UNLISTEN\b|pg_backend_pid/i.test(text)) return 'relay';
  if (/campaign_owner/i.test(text)) return 'ownership_read';
  return 'other';
}

export function installStatementCounter(): void {
  if (installed) return;
  installed = true;
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  // pg's query has many overloads (text, config object, Submittable); only the text is read here.
  (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: unknown } | undefined;
    const text = typeof first === 'string' ? first : typeof first?.text === 'string' ? first.text : '';
    const tag = tags.getStore() ?? 'background';
    const byKind = counts.get(tag) ?? new Map<StatementKind, number>();
    counts.set(tag, byKind);
    const kind = statementKind(text);
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    return original.apply(this, args);
  };
}

/** Runs `fn` with every statement it causes counted under `tag`. */
export function tagged<T>(tag: string, fn: () => Promise<T>): Promise<T> {
  return tags.run(tag, fn);
}

/** A copy of every count so far. */
export function statementCounts(): StatementCounts {
  const out: StatementCounts = {};
  for (const [tag, byKind] of counts) out[tag] = Object.fromEntries(byKind);
  return out;
}

/** `after - before`, kinds with no change left out. */
export function diffCounts(after: StatementCounts, before: StatementCounts): StatementCounts {
  const out: StatementCounts = {};
  for (const [tag, byKind] of Object.entries(after)) {
    for (const [kind, n] of Object.entries(byKind) as [StatementKind, number][]) {
      const d = n - (before[tag]?.[kind] ?? 0);
      if (d !== 0) (out[tag] ??= {})[kind] = d;
    }
  }
  return out;
}

export const totalOf = (byKind: Partial<Record<StatementKind, number>> | undefined): number => Object.values(byKind ?? {}).reduce((a, b) => a + (b ?? 0), 0);
