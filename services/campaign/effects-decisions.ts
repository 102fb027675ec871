/**
 * The decision effects: one Argus turn, the mission's status poll, one Foreman assessment, the
 * mission binding and its verification. Each gathers facts and answers with them; the chart
 * (campaign.attention.ts) decides what they mean. None throws for a runtime that cannot run:
 * it answers with the runtime's code (`argus_unavailable`, `foreman_disabled`, …), so an
 * unavailable Argus or Foreman never blocks observation.
 *
 * Only `argusTurn` and `foremanAssess` call a model (counted by the decision runtime); the
 * status poll, the binding and its verification use `argus_status` / `argus_project_create`.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { fromPromise } from 'xstate';
import type { ForemanCampaignFacts, ForemanWorkerStatus } from '../../adapters/foreman/index.js';
import type {
  ArgusCheckInput,
  ArgusCheckOutput,
  ArgusTurnInput,
  ArgusTurnOutput,
  BindMissionInput,
  BindMissionOutput,
  ForemanAssessInput,
  ForemanAssessOutput,
  RemoteView,
  VerifyBindingInput,
  VerifyBindingOutput,
} from '../../machines/campaign.types.js';
import type { EffectDeps } from './effect-deps.js';

/** Codes that say the runtime cannot answer now, not that the project is gone. */
const TRANSIENT = new Set(['argus_unavailable', 'argus_timeout', 'argus_bad_result', 'daemon_start_failed', 'manager_failed']);
const codeOf = (e: unknown): string => (e && typeof e === 'object' && typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string }).code : 'envelope_invalid');

export function createDecisionEffects(deps: EffectDeps) {
  const runtime = deps.decisions;
  const now = () => deps.now().toISOString();

  const argusTurn = fromPromise<ArgusTurnOutput, ArgusTurnInput>(async ({ input }) => {
    const bridge = runtime?.argus() ?? null;
    if (!runtime || !bridge) return { ok: false, wokeAt: now(), code: 'argus_unavailable' };
    const { wake } = input;
    let text: string;
    try {
      text = wake.answer
        ? runtime.answerEnvelope({ itemId: wake.answer.itemId, answer: wake.answer.text, eventKey: wake.eventKey, notice: wake.answer.question })
        : runtime.decisionEnvelope({
            campaignId: input.campaignId,
            objective: deps.objectiveOf?.(input.campaignId) ?? '',
            eventKey: wake.eventKey,
            event: {
              eventClass: wake.eventClass ?? wake.reason,
              reasonCode: wake.reason,
              stage: input.remote?.stage ?? null,
              attempt: input.remote?.attempt ?? null,
              statusText: statusText(input.remote, input.remoteQuestion),
              foremanHint: wake.foremanHint,
            },
          });
    } catch (e) {
      return { ok: false, wokeAt: now(), code: codeOf(e) };
    }
    // Taken before the message leaves: the Reviewer's verdict must be written after it.
    const wokeAt = now();
    const answered = await bridge.message(input.projectId, text);
    if (!answered.ok) return { ok: false, wokeAt, code: answered.error.code };
    const deadlineAt = new Date(Date.parse(wokeAt) + runtime.missionDeadlineMs).toISOString();
    const turn = answered.value;
    return { ok: true, wokeAt, deadlineAt, turn: turn.kind === 'chat' ? { kind: 'chat' } : turn };
  });

  const argusCheck = fromPromise<ArgusCheckOutput, ArgusCheckInput>(async ({ input }) => {
    const bridge = runtime?.argus() ?? null;
    if (!runtime || !bridge) return { ok: false, at: now(), code: 'argus_unavailable' };
    const status = await bridge.status(input.projectId);
    if (!status.ok) return { ok: false, at: now(), code: status.error.code };
    const proposal = await runtime.readProposal(input.campaignId, input.eventKey);
    const consumed = proposal.status === 'found' && (deps.decisionConsumed?.(input.campaignId, proposal.proposal.decision_id) ?? false);
    const { journal, backlog, pendingQuestions } = status.value;
    // Every other fact the chart judges an approved proposal by is in its own context.
    return { ok: true, at: now(), journal, backlog, pendingQuestions, proposal, consumed, requestId: randomUUID() };
  });

  const foremanAssess = fromPromise<ForemanAssessOutput, ForemanAssessInput>(async ({ input }) => {
    if (!runtime) return { ok: false, at: now(), code: 'foreman_unavailable' };
    const verdict = await runtime.assessCampaign(foremanFacts(input, deps.objectiveOf?.(input.campaignId) ?? ''));
    return verdict.ok ? { ok: true, directive: verdict.value.directive, reason: verdict.value.reason, at: now() } : { ok: false, code: verdict.error.code, at: now() };
  });

  const bindMission = fromPromise<BindMissionOutput, BindMissionInput>(async ({ input }) => {
    const bridge = runtime?.argus() ?? null;
    if (!runtime || !bridge) return { ok: false, code: 'argus_unavailable' };
    const workdir = runtime.ensureWorkdir(input.campaignId);
    if (workdir === null) return { ok: false, code: 'argus_workdir_unavailable' };
    // Re-attach: the binding we have, if its project still answers.
    if (input.projectId !== null && (await bridge.status(input.projectId)).ok) return { ok: true, projectId: input.projectId };
    const created = await bridge.createProject(workdir, input.campaignId);
    return created.ok ? { ok: true, projectId: created.value.projectId } : { ok: false, code: created.error.code };
  });

  const verifyBinding = fromPromise<VerifyBindingOutput, VerifyBindingInput>(async ({ input }) => {
    const bridge = runtime?.argus() ?? null;
    if (!bridge) return { ok: false, code: 'argus_unavailable', definite: false };
    const status = await bridge.status(input.projectId);
    if (status.ok) return { ok: true };
    return { ok: false, code: status.error.code, definite: !TRANSIENT.has(status.error.code) };
  });

  return { argusTurn, argusCheck, foremanAssess, bindMission, verifyBinding };
}

/** The remote's state (ours to say) and its question when blocked (untrusted: the envelope bounds it). */
function statusText(remote: RemoteView | null, question: string | null): string | null {
  if (remote === null) return question;
  const parts = [`remote task ${remote.state}`, remote.missionComplete ? 'the remote reports the mission complete' : null, question ? `question: ${question}` : null];
  return parts.filter(Boolean).join('; ');
}

const WORKER_STATUS: Partial<Record<RemoteView['state'], ForemanWorkerStatus>> = {
  submitted: 'pending',
  working: 'running',
  'input-required': 'running',
  'auth-required': 'running',
  completed: 'completed',
  failed: 'failed',
  canceled: 'cancelled',
  rejected: 'failed',
};

/** What Foreman sees of the campaign: the bound attempt as one worker, and its evidence. */
function foremanFacts(input: ForemanAssessInput, objective: string): ForemanCampaignFacts {
  const remote = input.remote;
  const status = remote ? (WORKER_STATUS[remote.state] ?? 'running') : 'pending';
  const attemptId = remote?.attemptId ?? `attempt-${remote?.attempt ?? input.attemptsSubmitted}`;
  const finished = status === 'completed' || status === 'failed' || status === 'cancelled';
  return {
    campaignId: input.campaignId,
    objective,
    status: remote?.missionComplete ? 'FINISHED' : 'RUNNING',
    assessment: 1,
    attempts: remote ? [{ attemptId, status, attempt: remote.attempt ?? input.attemptsSubmitted, exitCode: status === 'completed' ? 0 : status === 'failed' ? 1 : null, startedAt: null, finishedAt: finished ? remote.observedAt : null, elapsedSeconds: null, outputTail: `remote task ${remote.state}` }] : [],
    activeAttemptIds: remote && !finished ? [attemptId] : [],
    latestStatusText: remote ? `remote task ${remote.state}${remote.stage ? ` at stage ${remote.stage}` : ''}` : null,
    artifacts: remote?.artifactIds ?? [],
    metrics: [],
    evaluations: [],
    recentEvents: [{ ts: remote?.observedAt ?? new Date(0).toISOString(), kind: input.wake.eventClass ?? input.wake.reason, summary: input.wake.reason }],
    failures: status === 'failed' ? [`attempt ${attemptId} failed`] : [],
    elapsedSeconds: 0,
    previousDirective: null,
  };
}
