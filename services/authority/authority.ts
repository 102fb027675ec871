/**
 * The authority path: claim, the four fenced mutations (submit, intervene, cancel, release)
 * and resolve_intent. Every rule that can be checked locally is checked before any I/O; the
 * machine's guards decide with a readback taken just now; the intent is journaled (fsynced)
 * before the relay sends anything; an answer that may have been applied is never re-sent.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { fromPromise } from 'xstate';
import type { A2AClient } from '../../adapters/a2a/index.js';
import type { LeaseView } from '../../adapters/a2a/control-contract.js';
import type { RemoteDescription } from '../../adapters/a2a/discovery.js';
import type { RemoteError } from '../../adapters/a2a/errors.js';
import { explainRefusal } from '../../machines/campaign.refusals.js';
import { READBACK_FRESH_MS } from '../../machines/campaign.types.js';
import type {
  CampaignEvent,
  ClaimLeaseOutput,
  LeaseReadback,
  MutateEvent,
  Mutation,
  ReadBackIntentOutput,
  RelayMutationOutput,
  RenewLeaseOutput,
} from '../../machines/campaign.types.js';
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import { openIntent, recordIntent, recordIntentOutcome } from '../../persistence/intent-journal.js';
import { digestPayload } from '../../persistence/payload-digest.js';
import { ApiFailure, apiError, type ApiError, type ApiErrorCode } from '../api/api-errors.js';
import { describeStates, peekSnapshot, runCampaignEffect, type StepResult } from '../campaign/campaign-actor.js';
import { summarize as summarizeDocument } from '../campaign/campaign-summary.js';
import type { CampaignSummary } from '../api/read-model.js';
import { crashPoint, isArmed } from '../runtime/fault-points.js';
import { refusalResult } from '../api/refusals.js';
import { relayOutcome, remoteRefusalCode, send } from './mutation-wire.js';
import { draftsFromEmitted, publish, stepAndPublish, wakesFromEmitted, applyMachineContext, type DocumentChange } from '../campaign/observation.js';
import type { ApiResult } from '../api/supervisor-api.js';

export interface AuthorityDeps {
  controllerId: string;
  leaseTtlSeconds: number;
  /** The shortest TTL the heartbeat can keep renewed (two beats). */
  minTtlSeconds: number;
  remote: A2AClient | null;
  /** The remote's description, discovering it now if start-up could not. */
  description: () => Promise<RemoteDescription | null>;
  /** Another campaign of this supervisor that controls `contextId`, if any. */
  controllerOfContext(contextId: string, exceptCampaignId: string): string | null;
  /** Why there is no remote client (not configured, or the supervisor is not enabled). */
  noRemote(): ApiError;
  /** Records an intent whose outcome could not be written as in doubt (never re-sent). */
  markInDoubt(campaignId: string): Promise<void>;
  loadDoc(campaignId: string): Promise<ApiResult<CampaignDocument>>;
  /** Runs a pure change under the store lock; null when refused or nothing changed. */
  commit(campaignId: string, change: (doc: CampaignDocument) => DocumentChange | null): Promise<DocumentChange | null>;
  /** The campaign view an answer carries (the supervisor adds what only memory knows, e.g. last_read_at). */
  view?: (doc: CampaignDocument) => CampaignSummary;
  now(): Date;
}

type Capability = 'claim_control' | 'renew_control' | 'release_control' | 'submit' | 'intervene' | 'cancel';
const CAPABILITY_OF: Record<Mutation['kind'], Capability> = {
  submit: 'submit',
  intervene: 'intervene',
  cancel: 'cancel',
  release: 'release_control',
};

/** A mutation is not sent when the lease has less than this left: it could lapse in flight. */
const LEASE_SEND_MARGIN_MS = 5_000;

export interface MutationFacts {
  mutationInFlight: boolean;
  keepAnswer?: ((doc: CampaignDocument, answer: ApiResult<unknown>) => CampaignDocument) | undefined;
}

const ok = <T>(value: T): ApiResult<T> => ({ ok: true, value });
const fail = (code: ApiErrorCode, message: string): ApiResult<never> => ({ ok: false, error: apiError(code, message) });

export function createAuthority(deps: AuthorityDeps) {
  const { controllerId } = deps;
  const summarize = deps.view ?? summarizeDocument;

  /** The remote, if it may be mutated at all; otherwise the refusal (nothing is sent). */
  async function mutableRemote(
    capability: Capability,
  ): Promise<{ ok: true; remote: A2AClient; description: RemoteDescription } | { ok: false; error: ApiError }> {
    const description = await deps.description();
    if (!deps.remote) return { ok: false, error: deps.noRemote() };
    if (!description) return { ok: false, error: apiError('remote_unavailable', 'The remote has not been discovered yet; nothing was sent.') };
    if (!description.mutationsEnabled || !description.capabilities[capability]) {
      return {
        ok: false,
        error: apiError('unsupported_capability', `The remote does not advertise ${capability} with an epoch-fenced lease; nothing was sent.`),
      };
    }
    return { ok: true, remote: deps.remote, description };
  }

  const toReadback = (lease: LeaseView | null, readAt: Date): LeaseReadback | null =>
    lease ? { holder: lease.holder, epoch: lease.epoch, expiresAt: lease.expiresAt, readAt: readAt.toISOString() } : null;

  const contextOf = (doc: CampaignDocument): string | null => doc.remote.contextId ?? doc.remoteView?.contextId ?? null;

  /**
   * The document fields that mirror authority, derived from the machine after a step: the
   * local lease copy exists only while the machine is in `controlling`.
   */
  function mirrorAuthority(doc: CampaignDocument, step: StepResult, lease: LeaseView | null): CampaignDocument {
    const controlling = describeStates(step.snapshot).authority === 'controlling';
    const ctxLease = step.snapshot.context.lease;
    return {
      ...doc,
      machine: step.persisted,
      controllerMode: controlling ? 'controller' : 'observer',
      lease:
        controlling && ctxLease
          ? {
              contextId: lease?.contextId ?? doc.lease?.contextId ?? contextOf(doc) ?? '',
              holder: controllerId,
              epoch: ctxLease.epoch,
              expiresAt: ctxLease.expiresAt,
              ttlSeconds: lease?.ttlSeconds ?? doc.lease?.ttlSeconds ?? deps.leaseTtlSeconds,
            }
          : null,
    };
  }

  /** Refuses to commit over a document another writer changed since the effect started. */
  const unchangedSince = (before: CampaignDocument, doc: CampaignDocument) =>
    JSON.stringify(doc.machine) === JSON.stringify(before.machine) && doc.intents.length === before.intents.length;

  // ---- claim ---------------------------------------------------------------------------------

  async function claim(campaignId: string, ttlSeconds = deps.leaseTtlSeconds): Promise<ApiResult<unknown>> {
    const gate = await mutableRemote('claim_control');
    if (!gate.ok) return { ok: false, error: gate.error };
    if (ttlSeconds < deps.minTtlSeconds) {
      return fail('invalid_request', `ttl_seconds must be at least ${deps.minTtlSeconds} so the heartbeat can renew the lease in time.`);
    }
    const loaded = await deps.loadDoc(campaignId);
    if (!loaded.ok) return loaded;
    const doc = loaded.value;
    const event: CampaignEvent = { type: 'OPERATOR_CLAIM', ttlSeconds };
    const refusal = explainRefusal(peekSnapshot(doc), event);
    if (refusal) return refusalResult(refusal);

    // An attached task's context is the one to lease: learn it before claiming, never guess.
    let contextId = contextOf(doc);
    if (!contextId && doc.remote.taskId) {
      const read = await gate.remote.getTask(doc.remote.taskId);
      if (!read.ok) return fail('remote_unavailable', `The task could not be read to find its context (${read.error.code}); nothing was claimed.`);
      contextId = read.value.contextId;
    }
    const other = contextId ? deps.controllerOfContext(contextId, campaignId) : null;
    if (other) return fail('lease_held', `Campaign ${other} already controls this remote context; release it there first.`);

    let remoteError: RemoteError | null = null;
    let granted: LeaseView | null = null;
    const claimLease = fromPromise<ClaimLeaseOutput>(async () => {
      const claimed = await gate.remote.control.leaseClaim({
        ...(contextId ? { contextId } : {}),
        controllerId,
        ttlSeconds,
        requestId: randomUUID(),
      });
      if (!claimed.ok) {
        remoteError = claimed.error;
        return { claimed: null, readback: null };
      }
      granted = claimed.value.lease;
      // The claim's own answer is not enough: read the lease back.
      const readback = granted ? await gate.remote.control.leaseGet({ contextId: granted.contextId }) : null;
      const at = deps.now();
      return {
        claimed: toReadback(granted, at),
        readback: readback && readback.ok ? toReadback(readback.value.lease, at) : null,
      };
    });
    const step = await runCampaignEffect(doc, event, { claimLease });
    const change = await deps.commit(campaignId, (current) => {
      if (!unchangedSince(doc, current)) return null;
      const lease = granted as LeaseView | null;
      const next = mirrorAuthority(
        { ...current, remote: { ...current.remote, contextId: current.remote.contextId ?? contextId ?? lease?.contextId ?? null } },
        step,
        lease,
      );
      return publish(applyMachineContext(next, step, deps.now()), draftsFromEmitted(step.emitted), wakesFromEmitted(step.emitted), deps.now());
    });
    if (!change) return fail('action_not_allowed', 'The campaign changed while the claim was in flight; read it again.');
    if (change.doc.controllerMode === 'controller') {
      return ok({ campaign: summarize(change.doc), lease: { epoch: change.doc.lease?.epoch, expires_at: change.doc.lease?.expiresAt } });
    }
    const error = remoteError as RemoteError | null;
    if (error?.code === 'lease_held') return fail('lease_held', 'Another controller holds an unexpired lease on this remote context.');
    if (error) return fail('remote_unavailable', `The claim failed at the remote (${error.code}).`);
    return fail('lease_not_held', 'The remote did not confirm the lease on readback; the campaign stays an observer.');
  }

  // ---- fenced mutations ---------------------------------------------------------------------

  /** The bound task's last observed state; a task bound since the last read is 'unobserved'. */
  const boundTaskState = (doc: CampaignDocument): string | null =>
    doc.remote.taskId === null ? null : doc.remoteView?.taskId === doc.remote.taskId ? doc.remoteView.state : 'unobserved';

  /**
   * One fenced mutation. The caller holds the campaign's in-flight slot (one mutation at a
   * time), says whether another was in flight when this one arrived, and may ask for the
   * answer to be kept (an Idempotency-Key) in the outcome's own write.
   */
  async function mutate(campaignId: string, mutation: Mutation, epoch: number, facts: MutationFacts): Promise<ApiResult<unknown>> {
    const gate = await mutableRemote(CAPABILITY_OF[mutation.kind]);
    if (!gate.ok) return { ok: false, error: gate.error };
    const loaded = await deps.loadDoc(campaignId);
    if (!loaded.ok) return loaded;
    const doc = loaded.value;
    const snapshot = peekSnapshot(doc);
    const epochEnforced = gate.description.controlParams?.epochEnforcement === true;
    const approval = { kind: 'operator', principal: 'api-key' } as const;
    const contextId = contextOf(doc);
    if (mutation.kind !== 'intervene' && mutation.kind !== 'cancel' ? !contextId : !doc.remote.taskId) {
      return fail('action_not_allowed', 'The campaign has no remote task or context to act on.');
    }

    // Every rule that needs no network is checked first, against our own lease copy.
    const localNow = deps.now();
    const ours = snapshot.context.lease;
    const local: MutateEvent = {
      type: 'MUTATE',
      mutation,
      requestId: 'local-check',
      epoch,
      readback: ours ? { holder: controllerId, epoch: ours.epoch, expiresAt: ours.expiresAt, readAt: localNow.toISOString() } : null,
      epochEnforced,
      approval,
      now: localNow.toISOString(),
      mutationInFlight: facts.mutationInFlight,
      boundTaskState: boundTaskState(doc),
    };
    const localRefusal = explainRefusal(snapshot, local);
    if (localRefusal) return refusalResult(localRefusal);

    // A fresh readback, taken now, decides.
    const read = await gate.remote.control.leaseGet({ contextId: (doc.lease?.contextId ?? contextId)! });
    if (!read.ok) return fail('remote_unavailable', `The lease could not be read back (${read.error.code}); nothing was sent.`);
    const readAt = deps.now();
    const event: MutateEvent = { ...local, requestId: randomUUID(), readback: toReadback(read.value.lease, readAt), now: readAt.toISOString() };
    const refusal = explainRefusal(snapshot, event);
    if (refusal) {
      if (refusal === 'lease_not_held') await recordLeaseLost(campaignId, event.readback, readAt);
      return refusalResult(refusal);
    }

    // Journal before any network I/O: the intent is durable (fsynced) before the relay sends.
    const journaled = await deps.commit(campaignId, (current) => {
      if (!unchangedSince(doc, current)) return null;
      const recorded = recordIntent(current, {
        requestId: event.requestId,
        action: mutation.kind,
        epoch,
        payloadDigest: digestPayload({ mutation, epoch, contextId, taskId: doc.remote.taskId }),
        createdAt: readAt,
      });
      return recorded.ok ? { doc: recorded.doc, appended: [], wakes: [] } : null;
    });
    if (!journaled) return fail('action_not_allowed', 'The intent could not be journaled; nothing was sent.');
    crashPoint('after_intent_write');

    let newTaskId: string | null = null;
    let relayed: RelayMutationOutput | null = null;
    const authority = { controllerId, epoch, requestId: event.requestId };
    const relayMutation = fromPromise<RelayMutationOutput>(async () => {
      // The journal write may have waited on a lock: the readback must still be fresh, and the
      // lease must outlive the request, at the moment of sending. Otherwise send nothing.
      const sendAt = deps.now().getTime();
      const expiresAt = event.readback ? Date.parse(event.readback.expiresAt) : 0;
      if (sendAt - readAt.getTime() > READBACK_FRESH_MS || expiresAt - sendAt < LEASE_SEND_MARGIN_MS) {
        relayed = { outcome: 'rejected', requestId: event.requestId, code: 'readback_stale', leaseLost: false };
        return relayed;
      }
      const sending = send(gate.remote, mutation, authority, { contextId: contextId!, taskId: doc.remote.taskId! });
      if (isArmed('after_send')) {
        // Give the request time to leave the process, then die without reading the answer.
        await new Promise((r) => setTimeout(r, 20));
        crashPoint('after_send');
      }
      const result = await sending;
      crashPoint('after_response');
      relayed = relayOutcome(result, event.requestId);
      if (result.ok) newTaskId = result.taskId;
      return relayed;
    });
    const step = await runCampaignEffect(journaled.doc, event, { relayMutation });
    crashPoint('before_outcome_write');
    // A relay that threw or answered ambiguously stays in doubt: never re-sent.
    const answer = relayed as RelayMutationOutput | null;
    const output =
      answer?.outcome === 'applied'
        ? { status: 'applied' as const }
        : answer?.outcome === 'rejected'
          ? { status: 'rejected' as const, code: answer.code }
          : null;
    const change = await commitOutcome(campaignId, (current) => {
      const now = deps.now();
      let next: CampaignDocument = current;
      const status = output?.status ?? 'ambiguous';
      const settled = recordIntentOutcome(next, event.requestId, {
        status,
        ...(output?.code ? { code: output.code } : {}),
        at: now,
        settledBy: 'response',
      });
      if (settled.ok) next = settled.doc;
      next = mirrorAuthority(next, step, null);
      const taskId = newTaskId as string | null;
      if (taskId && mutation.kind === 'submit') {
        next = { ...next, remote: { ...next.remote, taskId }, attemptsSubmitted: current.attemptsSubmitted + 1 };
      }
      next = applyMachineContext(next, step, now);
      const published = publish(next, draftsFromEmitted(step.emitted), wakesFromEmitted(step.emitted), now);
      // The answer is kept in the same write as the outcome: no crash can separate them.
      return facts.keepAnswer ? { ...published, doc: facts.keepAnswer(published.doc, answerFor(published.doc)) } : published;
    });
    if (!change) {
      // The outcome could not be written: whatever the answer was, the intent is now in doubt.
      await deps.markInDoubt(campaignId).catch(() => undefined);
      return fail('mutation_in_doubt', `The ${mutation.kind} outcome could not be recorded; it will not be re-sent. Use resolve_intent.`);
    }
    return answerFor(change.doc);

    function answerFor(doc: CampaignDocument): ApiResult<unknown> {
      if (!output) {
        return fail('mutation_in_doubt', `The ${mutation.kind} may or may not have been applied; it will not be re-sent. Use resolve_intent.`);
      }
      if (output.status === 'applied') {
        const taskId = newTaskId as string | null;
        return ok({ campaign: summarize(doc), request_id: event.requestId, outcome: 'applied', ...(taskId ? { task_id: taskId } : {}) });
      }
      return fail(remoteRefusalCode(output.code), `The remote refused the ${mutation.kind} (${output.code ?? 'rejected'}); nothing was applied.`);
    }
  }

  /** The relay has happened: a store that cannot take the outcome leaves it in doubt, never an error that invites a retry. */
  async function commitOutcome(campaignId: string, change: (doc: CampaignDocument) => DocumentChange | null): Promise<DocumentChange | null> {
    try {
      return await deps.commit(campaignId, change);
    } catch (error) {
      if (error instanceof ApiFailure) return null;
      throw error;
    }
  }

  async function recordLeaseLost(campaignId: string, readback: LeaseReadback | null, at: Date): Promise<void> {
    await deps.commit(campaignId, (current) => {
      // Only authority changes: the remote's own state (e.g. still asking a question) stands.
      const state = current.remoteView?.state;
      const remoteBlocked = state === 'input-required' || state === 'auth-required';
      return stepAndPublish(
        current,
        [{ type: 'REMOTE_OBSERVED', observedAt: at.toISOString(), events: [], wakes: [], remoteBlocked, readback }],
        [],
        at,
      );
    });
  }

  /** A lease whose expiry passed while the remote could not be read is gone: say so once. */
  async function expireIfLapsed(campaignId: string): Promise<boolean> {
    const loaded = await deps.loadDoc(campaignId);
    if (!loaded.ok) return false;
    const snapshot = peekSnapshot(loaded.value);
    const ours = snapshot.context.lease;
    if (describeStates(snapshot).authority !== 'controlling' || !ours) return false;
    const now = deps.now();
    if (Date.parse(ours.expiresAt) > now.getTime()) return false;
    await recordLeaseLost(campaignId, null, now);
    return true;
  }

  // ---- resolve_intent ----------------------------------------------------------------------

  /**
   * Settles a mutation in doubt by asking the remote to read back its request id. Only an
   * authoritative `applied` / `not_applied` settles it; it never resends and never reclaims.
   */
  async function resolveIntent(campaignId: string): Promise<ApiResult<unknown>> {
    const loaded = await deps.loadDoc(campaignId);
    if (!loaded.ok) return loaded;
    const doc = loaded.value;
    const event: CampaignEvent = { type: 'RESOLVE_INTENT' };
    const refusal = explainRefusal(peekSnapshot(doc), event);
    if (refusal) return refusalResult(refusal);
    const intent = openIntent(doc);
    if (!intent) return fail('intent_not_found', 'The campaign has no mutation in doubt.');
    const description = await deps.description();
    const canRead = deps.remote !== null && description?.controlParams?.requestReadback === true;
    let readback: { status: 'applied' | 'not_applied'; taskId?: string } | null = null;
    const readBackIntent = fromPromise<ReadBackIntentOutput>(async () => {
      if (!canRead || !deps.remote) return { requestId: intent.requestId, status: 'unavailable' };
      const r = await deps.remote.control.requestGet({ requestId: intent.requestId });
      // Only an answer about this very request, and this kind of action, settles it.
      const answered = r.ok && r.value.requestId === intent.requestId && (r.value.action === undefined || r.value.action === intent.action);
      if (!r.ok || !answered) return { requestId: intent.requestId, status: 'unavailable' };
      readback = { status: r.value.status, ...(r.value.taskId ? { taskId: r.value.taskId } : {}) };
      return { requestId: r.value.requestId, status: r.value.status };
    });
    const step = await runCampaignEffect(doc, event, { readBackIntent });
    const settled = readback as { status: 'applied' | 'not_applied'; taskId?: string } | null;
    const change = await deps.commit(campaignId, (current) => {
      if (!unchangedSince(doc, current)) return null;
      const now = deps.now();
      let next: CampaignDocument = mirrorAuthority(current, step, null);
      if (settled) {
        const recorded = recordIntentOutcome(next, intent.requestId, { status: settled.status, at: now, settledBy: 'readback' });
        if (!recorded.ok) return null;
        next = recorded.doc;
        if (settled.status === 'applied' && intent.action === 'submit') {
          next = {
            ...next,
            attemptsSubmitted: current.attemptsSubmitted + 1,
            remote: settled.taskId ? { ...next.remote, taskId: settled.taskId } : next.remote,
          };
        }
      }
      next = applyMachineContext(next, step, now);
      return publish(next, draftsFromEmitted(step.emitted), wakesFromEmitted(step.emitted), now);
    });
    if (!change) return fail('action_not_allowed', 'The campaign changed while the readback was in flight; read it again.');
    if (!settled) {
      return fail(
        'intent_unresolved',
        canRead
          ? 'The remote could not read the request back now; the campaign keeps observing. Try again later.'
          : 'The remote cannot read back request ids; reconcile at the remote service. The campaign keeps observing.',
      );
    }
    return ok({ campaign: summarize(change.doc), request_id: intent.requestId, action: intent.action, status: settled.status });
  }

  // ---- the heartbeat's authority duty --------------------------------------------------------

  /**
   * Called on every tick of a campaign that holds the lease, with this tick's snapshot: a
   * readback that no longer shows our lease moves it to control-lost at once; a lease close to
   * expiry is renewed. Returns true when it wrote.
   */
  async function superviseLease(campaignId: string, observed: LeaseView | null, renewWithinMs: number): Promise<boolean> {
    const loaded = await deps.loadDoc(campaignId);
    if (!loaded.ok) return false;
    const doc = loaded.value;
    const snapshot = peekSnapshot(doc);
    if (describeStates(snapshot).authority !== 'controlling') return false;
    const now = deps.now();
    const readback = toReadback(observed, now);
    const ours = snapshot.context.lease;
    const stillOurs =
      readback !== null && ours !== null && readback.holder === controllerId && readback.epoch === ours.epoch && Date.parse(readback.expiresAt) > now.getTime();
    if (!stillOurs) {
      await recordLeaseLost(campaignId, readback, now);
      return true;
    }
    if (Date.parse(readback.expiresAt) - now.getTime() > renewWithinMs) return false;
    const gate = await mutableRemote('renew_control');
    const contextId = doc.lease?.contextId ?? contextOf(doc);
    const ttlSeconds = doc.lease?.ttlSeconds ?? deps.leaseTtlSeconds;
    const renewLease = fromPromise<RenewLeaseOutput>(async () => {
      if (!gate.ok || !contextId) throw new Error('renewal unavailable');
      const renewed = await gate.remote.control.leaseRenew({ contextId, controllerId, epoch: ours.epoch, ttlSeconds, requestId: randomUUID() });
      if (!renewed.ok) throw new Error(renewed.error.code);
      return { lease: toReadback(renewed.value.lease, deps.now()) };
    });
    const step = await runCampaignEffect(doc, { type: 'RENEW_DUE', ttlSeconds }, { renewLease });
    await deps.commit(campaignId, (current) => {
      if (!unchangedSince(doc, current)) return null;
      const at = deps.now();
      const next = applyMachineContext(mirrorAuthority(current, step, null), step, at);
      return publish(next, draftsFromEmitted(step.emitted), wakesFromEmitted(step.emitted), at);
    });
    return true;
  }

  return { claim, mutate, resolveIntent, superviseLease, expireIfLapsed };
}
