/**
 * The replicas benchmark's contract pieces that need no database: its arguments, and the
 * statement kinds it counts round trips by, checked against the real SQL the supervisor sends
 * (so a reworded statement cannot silently move to `other`). The benchmark itself takes
 * longer than a suite test should (it waits out PostgreSQL's stats flush twice and one TTL);
 * run it with `npm run bench -- --campaigns 300 --replicas 3`.
 */
import { describe, expect, it } from 'vitest';
import { BEAT_SQL, CLAIM_SQL, RELEASE_SQL } from '../../persistence/postgres/ownership-sql.js';
import * as relay from '../../persistence/postgres/relay-sql.js';
import { statementKind } from '../../bench/replica-statements.js';
import { DEFAULT_BENCH_DATABASE_URL, parseReplicasArgs, wantsReplicas } from '../../bench/replicas-args.js';

describe('bench --replicas arguments', () => {
  it('is chosen by --replicas in either spelling, with defaults and the database URL from the environment', () => {
    expect(wantsReplicas(['--campaigns', '10', '--replicas', '3'])).toBe(true);
    expect(wantsReplicas(['--replicas=2'])).toBe(true);
    expect(wantsReplicas(['--fleet'])).toBe(false);
    expect(parseReplicasArgs(['--replicas', '3'], {})).toEqual({ replicas: 3, campaigns: 1000, concurrency: 64, rounds: 3, ttlSeconds: 30, databaseUrl: DEFAULT_BENCH_DATABASE_URL, json: false });
    const url = 'postgresql://bench@127.0.0.1:5433/other';
    expect(parseReplicasArgs(['--replicas=4', '--campaigns', '10000', '--ttl-seconds', '2.5', '--json'], { ARGUS_SUPERVISOR_TEST_DATABASE_URL: url })).toMatchObject({ replicas: 4, campaigns: 10000, ttlSeconds: 2.5, databaseUrl: url, json: true });
    expect(parseReplicasArgs(['--replicas', '2', '--database-url', url], {}).databaseUrl).toBe(url);
  });

  it('refuses unknown flags, a single replica, a non-PostgreSQL URL and out-of-range numbers', () => {
    expect(() => parseReplicasArgs(['--replicas', '3', '--fleet'])).toThrow(/unknown argument/);
    expect(() => parseReplicasArgs(['--replicas', '1'])).toThrow(/from 2 to 16/);
    expect(() => parseReplicasArgs(['--replicas', '3', '--database-url', 'mysql://x'])).toThrow(/postgresql:\/\//);
    expect(() => parseReplicasArgs(['--replicas', '3', '--ttl-seconds', '0.2'])).toThrow(/from 1 to 120/);
    expect(() => parseReplicasArgs(['--replicas'])).toThrow(/needs a value/);
  });
});

describe('statement kinds', () => {
  it('sorts the ownership, document, placement and relay statements the supervisor really sends', () => {
    expect(statementKind(BEAT_SQL)).toBe('ownership_beat');
    expect(statementKind(CLAIM_SQL)).toBe('ownership_claim');
    expect(statementKind(RELEASE_SQL)).toBe('ownership_release');
    expect(statementKind('SELECT holder, fence::text AS fence, expires_at > now() AS live FROM campaign_owner WHERE campaign_id = $1 FOR SHARE')).toBe('document_fence_check');
    expect(statementKind('INSERT INTO campaign_documents (campaign_id, document, fence) VALUES ($1, $2, $3) ON CONFLICT (campaign_id) DO NOTHING RETURNING 1')).toBe('document_write');
    expect(statementKind('UPDATE campaign_documents SET document = $2, fence = $3, written_at = now() WHERE campaign_id = $1')).toBe('document_write');
    expect(statementKind('SELECT document FROM campaign_documents WHERE campaign_id = $1 FOR UPDATE')).toBe('document_read');
    expect(statementKind('\nSELECT\n  (SELECT count(*) FROM replicas WHERE expires_at > now())::int AS live_replicas')).toBe('placement');
    for (const sql of [relay.SEND_SQL, relay.CLAIM_SQL, relay.ANSWER_SQL, relay.READ_SQL, relay.PENDING_SQL]) expect(statementKind(sql)).toBe('relay');
    expect(statementKind('BEGIN')).toBe('transaction_control');
    expect(statementKind('SELECT 1')).toBe('other');
  });
});
