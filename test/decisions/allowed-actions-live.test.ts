/**
 * `allowed_actions` is what the API accepts at the moment it is read (issue 18, item 7). An
 * operator answers the remote's question (a fenced mutation that holds the campaign's request
 * gate while its outcome is saved); the view refreshed by that save must not keep the facts of
 * that moment. Then every operator action is walked: right before each one the view is read
 * again, and the action must be accepted exactly when the view offered it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { API_ERROR_STATUS } from '../../services/contract/api-errors.js';
import { createScope } from '../fixtures/supervisor-harness.js';
import { decisionWorld } from './decision-world.js';
import { boundCampaign, view } from './flow-helpers.js';

const scope = createScope();
afterEach(() => scope.dispose());

type Answer = { ok: boolean; value?: { campaign?: { allowed_actions: string[] }; lease?: { epoch: number } }; error?: { code: string } };

/** Refused ones first (they change nothing), then the accepted ones in an order that keeps the next meaningful. */
const WALK = ['resume', 'resolve_intent', 'answer', 'claim', 'submit', 'close', 'mission', 'observe', 'intervene', 'cancel', 'release', 'pause', 'close'] as const;

function bodyFor(action: (typeof WALK)[number], epoch: number): Record<string, unknown> {
  switch (action) {
    case 'answer':
      return { action, text: 'again' };
    case 'submit':
      return { action, epoch, text: 'another attempt' };
    case 'intervene':
      return { action, epoch, instruction: 'lower the learning rate' };
    case 'cancel':
      return { action, epoch, reason: 'enough' };
    case 'release':
      return { action, epoch };
    default:
      return { action };
  }
}

describe('allowed_actions after an answer to the remote question', () => {
  it('equals the accepted set at every step of a walk over every action', async () => {
    const w = await decisionWorld(scope);
    w.writeScript({ '*': { reply: 'task', verdict: 'complete' } });
    await boundCampaign(w, 'blocker');
    await w.sweepUntil(() => view(w).attention === 'needs-you');
    const claimed = (await w.act('c1', { action: 'claim' })) as Answer;
    expect(claimed.ok, JSON.stringify(claimed)).toBe(true);
    const epoch = claimed.value!.lease!.epoch;
    const answered = (await w.act('c1', { action: 'answer', text: 'Yes, lower it to 1e-4 and resume.', question_key: view(w).pending_question!.key })) as Answer;
    expect(answered.ok, JSON.stringify(answered)).toBe(true);

    // Controlling, the question gone: the lease's actions are offered again, in the answer and in the view.
    for (const allowed of [answered.value!.campaign!.allowed_actions, view(w).allowed_actions]) {
      expect(allowed).toEqual(expect.arrayContaining(['observe', 'pause', 'release', 'intervene', 'cancel']));
    }

    const disagreements: string[] = [];
    const accepted: string[] = [];
    for (const action of WALK) {
      const allowed = [...view(w).allowed_actions];
      const got = (await w.act('c1', bodyFor(action, epoch))) as Answer;
      if (!got.ok) {
        const status = API_ERROR_STATUS[got.error!.code as keyof typeof API_ERROR_STATUS];
        // A refusal by a rule is a 409 (or 503 for a missing runtime); anything else is an effect's answer.
        expect([409, 503], `${action}: ${JSON.stringify(got.error)}`).toContain(status);
      }
      if (got.ok) accepted.push(action);
      if (allowed.includes(action) !== got.ok) disagreements.push(`${action}: allowed ${JSON.stringify(allowed)}, answer ${JSON.stringify(got.error ?? 'ok')}`);
    }
    expect(disagreements).toEqual([]);
    // The walk did reach both sides: these were accepted, every other step refused.
    expect(accepted).toEqual(['mission', 'observe', 'intervene', 'cancel', 'release', 'pause', 'close']);
  });
});
