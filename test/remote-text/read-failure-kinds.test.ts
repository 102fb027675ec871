/**
 * A failed read's one CRITICAL says what the remote did: nothing (unavailable), answered that
 * the task is gone (missing), or answered nonsense (invalid payload). A streak that already
 * said "unavailable" still says once that the task is missing when that becomes the answer.
 */
import { describe, expect, it } from 'vitest';
import { readFailureKind, reduceReadFailure } from '../../services/reducer/reducer-critical.js';

const ctx = { campaignId: 'camp-1', cadenceMs: 120_000, outageStartedAt: '2030-01-01T00:00:00.000Z' };

describe('read failure kinds', () => {
  it.each([
    ['remote_timeout', 'remote_unavailable', /has not answered 3 reads/],
    ['remote_unreachable', 'remote_unavailable', /has not answered 3 reads/],
    ['remote_http_status', 'remote_unavailable', /has not answered 3 reads/],
    ['task_not_found', 'remote_task_missing', /remote task is missing/],
    ['remote_payload_invalid', 'remote_payload_invalid', /invalid payload/],
    ['remote_malformed', 'remote_payload_invalid', /invalid payload/],
  ])('%s → one CRITICAL with reason %s', (errorCode, reason, wording) => {
    expect(readFailureKind(errorCode)).toBe(reason);
    // The outbox remembers what it published; the caller passes that memory in.
    const published = new Set<string>();
    const drafts = [1, 2, 3, 4, 5].flatMap((n) => {
      const r = reduceReadFailure(n, { ...ctx, errorCode, published });
      for (const d of r.publicEvents) published.add(d.dedupeKey);
      return r.publicEvents;
    });
    expect(drafts).toHaveLength(1);
    expect(drafts[0]).toMatchObject({ kind: 'CRITICAL', data: { reason, errorCode, consecutiveFailures: 3 } });
    expect(drafts[0]!.summary).toMatch(wording);
    if (reason !== 'remote_unavailable') expect(drafts[0]!.summary).not.toMatch(/has not answered/);
  });

  it('a missing task alerts once more in a streak that already alerted as unavailable, then never again', () => {
    const published = new Set<string>();
    const run = (n: number, errorCode: string) => {
      const r = reduceReadFailure(n, { ...ctx, errorCode, published });
      for (const d of r.publicEvents) published.add(d.dedupeKey);
      return r.publicEvents.map((d) => d.data.reason);
    };
    const reasons = [run(1, 'remote_timeout'), run(2, 'remote_timeout'), run(3, 'remote_timeout'), run(4, 'task_not_found'), run(5, 'task_not_found'), run(6, 'task_not_found')];
    expect(reasons.flat()).toEqual(['remote_unavailable', 'remote_task_missing']);
  });
});
