/**
 * A turn past its budget. The decision budget is set to its smallest allowed value (10 s,
 * services/config/config.ts) and the SIMULATED Argus Manager sleeps past it before answering
 * (`hangMs`). The turn settles as NEEDS_YOU with a 'timeout' receipt, and it is never replayed:
 * one argus_message in the fake's own record, even after many sweeps and observes, and after
 * the fake's late answer has landed on its side (it dispatched an item nobody polls).
 * About 13 s: the budget cannot be set lower.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeProject } from '../../simulator/argus/fake-argus-state.js';
import { createScope, until } from '../fixtures/supervisor-harness.js';
import { decisionWorld } from './decision-world.js';
import { boundCampaign, docOf, journalOf, outboxOf, sweeps, taskMutations, toolCalls, view } from './flow-helpers.js';

const scope = createScope();
afterEach(() => scope.dispose());

const BUDGET_SECONDS = 10;
const HANG_MS = BUDGET_SECONDS * 1000 + 1_500;

describe('a turn past its budget', () => {
  it('leaves NEEDS_YOU with a timeout receipt and is not replayed, not even after the late answer', { timeout: 40_000 }, async () => {
    const w = await decisionWorld(scope, { extra: { ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS: String(BUDGET_SECONDS) } });
    expect(w.decisions.decisionBudgetMs).toBe(BUDGET_SECONDS * 1000);
    w.writeScript({ '*': { reply: 'task', verdict: 'complete', hangMs: HANG_MS } });
    await boundCampaign(w);
    await w.sweepUntil(() => view(w).remote.state === 'completed');
    await w.sweepUntil(() => w.argusMessages().length === 1);
    // When the fake received the call (its own record): the budget runs from just before that.
    const call = w.records().find((r) => r.type === 'call' && r.tool === 'argus_message');
    const receivedAt = Date.parse(call!.at!);
    expect(Number.isFinite(receivedAt)).toBe(true);
    expect(view(w).decisions.in_flight).toBe('turn');

    // The turn answers by itself (no heartbeat needed): past the budget, with the receipt.
    await until(() => view(w).attention === 'needs-you', 'the turn to time out', 120, 250);
    expect(Date.now() - receivedAt).toBeGreaterThanOrEqual(BUDGET_SECONDS * 1000 - 1_000);
    const q = view(w).pending_question!;
    expect(q.key).toMatch(/^timeout-\d+$/);
    expect(q.source).toBe('argus');
    expect(view(w).decisions.last).toMatchObject({ outcome: 'timeout', code: 'argus_timeout' });
    // The view is the actor's snapshot; the document is written just after it, so wait for the
    // receipt to be on disk before reading it there (CI once read the file in between).
    const argusWake = () => docOf(w).wake.requests.filter((r) => r.target === 'argus');
    await until(() => argusWake()[0]?.settled !== undefined, 'the timeout receipt to be persisted', 40, 50);
    const wake = argusWake();
    expect(wake).toHaveLength(1);
    expect(wake[0]!.settled).toMatchObject({ outcome: 'timeout' });

    // The fake's late answer lands on its side: it dispatched an item for the event.
    const projectFile = path.join(w.argusHome, 'fake-argus', 'projects', `${view(w).decisions.mission.project_id}.json`);
    const items = () => (JSON.parse(readFileSync(projectFile, 'utf8')) as FakeProject).items.length;
    await until(() => items() === 1, 'the fake to answer late', 40, 250);

    await sweeps(w, 10);
    for (let i = 0; i < 3; i++) expect((await w.supervisor.observe('c1')).ok).toBe(true);

    expect(w.argusMessages()).toHaveLength(1);
    expect(await w.modelCalls('argus')).toBe(1);
    // The late item is never polled: no mission was dispatched on our side.
    expect(toolCalls(w, 'argus_status')).toEqual([]);
    expect(view(w).attention).toBe('needs-you');
    expect(view(w).pending_question).toEqual(q);
    expect(outboxOf(w, 'NEEDS_YOU')).toHaveLength(1);
    expect(journalOf(w)).toEqual([]);
    expect(taskMutations(w)).toEqual([]);
  });
});
