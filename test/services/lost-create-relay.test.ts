/**
 * The lost create race's wait (services/runtime/supervisor-requests.ts, `afterLostCreate`): a
 * create that lost the claim asks the creator's replica until ONE overall deadline
 * (LOST_CREATE_DEADLINE_MS), each relay waiting at most what is left of it — never 25 relay
 * timeouts; and when the campaign is hosted here meanwhile (the relay answers null), it is
 * asked here with the same key, so the gate replays the kept answer — never `campaign_exists`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError } from '../../services/contract/api-errors.js';
import type { ApiResult } from '../../services/api/supervisor-api.js';
import type { RelayedCommand } from '../../services/runtime/replica-hosting.js';
import { LOST_CREATE_DEADLINE_MS, SupervisorRequests, type SupervisorRequestsDeps } from '../../services/runtime/supervisor-requests.js';

const BODY = { action: 'create', campaign_id: 'lost-1', objective: 'observe t', remote_task_id: 't' };
const exists: ApiResult<unknown> = { ok: false, error: apiError('campaign_exists', 'campaign lost-1 already exists') };
const replayed = { ok: true, value: { campaign: { campaign_id: 'lost-1' } }, replayed: true } as unknown as ApiResult<unknown>;
const unavailable: ApiResult<unknown> = { ok: false, error: apiError('owner_unavailable', 'still loading') };

/** The first `forward` (the door's) finds nobody; after that, `relay` answers each one. */
function requests(relay: (timeoutMs: number | undefined) => Promise<ApiResult<unknown> | null>, gateAnswers: ApiResult<unknown>[]) {
  let forwards = 0;
  const deps = {
    secrets: () => [],
    hosting: {
      owner: true,
      lost: false,
      valid: async () => true,
      refusal: async () => null,
      forward: async (_command: RelayedCommand, timeoutMs?: number) => (forwards++ === 0 ? null : relay(timeoutMs)),
      lose: () => undefined,
      release: async () => undefined,
    },
    gate: { idempotent: async () => gateAnswers.shift()!, indexKeys: () => undefined },
    actions: {},
    system: () => null,
    routeDeps: () => ({}),
  } as unknown as SupervisorRequestsDeps;
  return new SupervisorRequests(deps);
}

afterEach(() => vi.useRealTimers());

describe('a lost create race through two replicas', () => {
  it('waits for the creator until one overall deadline, each relay bounded by what is left', async () => {
    vi.useFakeTimers();
    const asked: (number | undefined)[] = [];
    // A relay that waits its whole timeout (the creator's replica never answers in time), 30 s unbounded.
    const relay = async (timeoutMs: number | undefined) => {
      asked.push(timeoutMs);
      await new Promise((resolve) => setTimeout(resolve, timeoutMs ?? 30_000));
      return unavailable;
    };
    const started = Date.now();
    const answer = requests(relay, [exists]).campaigns(BODY, { idempotencyKey: 'k1' });
    await vi.advanceTimersByTimeAsync(LOST_CREATE_DEADLINE_MS + 1_000);
    await expect(Promise.race([answer, Promise.resolve('still waiting')])).resolves.toEqual(unavailable);
    expect(Date.now() - started).toBeLessThanOrEqual(LOST_CREATE_DEADLINE_MS + 1_000);
    expect(asked.length).toBeGreaterThan(0);
    for (const t of asked) expect(t).toBeLessThanOrEqual(LOST_CREATE_DEADLINE_MS);
  });

  it('hosted here meanwhile: asked here with the same key, the kept answer replayed (never campaign_exists)', async () => {
    const answer = await requests(async () => null, [exists, replayed]).campaigns(BODY, { idempotencyKey: 'k2' });
    expect(answer).toEqual(replayed);
  });
});
