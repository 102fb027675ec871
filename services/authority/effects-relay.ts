/**
 * The intent effects: journal the intent durably, relay the one fenced mutation, and read a
 * request id back to settle doubt. The crash points keep their names and places (the chaos
 * bench kills the process exactly there): after the intent is on disk, after the request left,
 * after the answer arrived. A relay is sent exactly once and never retried.
 * @module
 */
import { fromPromise } from 'xstate';
import type {
  JournalIntentInput,
  JournalIntentOutput,
  ReadBackIntentInput,
  ReadBackIntentOutput,
  RelayMutationInput,
  RelayMutationOutput,
} from '../../machines/campaign.types.js';
import { bindingFitsMutation } from '../../machines/campaign.guards.js';
import { digestPayload } from '../../persistence/payload-digest.js';
import { JournalRefusedError, REMOTE_NOT_CONFIGURED, remoteOf, type AuthorityPorts } from './authority-ports.js';
import { crashPoint, isArmed } from '../faults/fault-points.js';
import { relayOutcome, send, type SendResult } from './mutation-wire.js';

/** How long an armed `after_send` waits so the request leaves the process before it dies. */
const AFTER_SEND_GRACE_MS = 20;

/**
 * Journal refusals the chart answers itself (nothing was written, and the reason is final):
 * the decision this intent applies was consumed already. Every other failure rejects.
 */
const REFUSALS_ANSWERED = new Set(['decision_consumed']);

export function createIntentEffects(deps: AuthorityPorts) {
  const { controllerId } = deps;

  /**
   * Resolves once the intent is durable. A journal that cannot write rejects: the chart's
   * onError fails closed (nothing was sent), which is the only safe reading of a lost write.
   * The clock for `journaledAt` is read after the write: the send margin counts from there.
   * A journal that refuses a consumed decision resolves with `refusedCode` and wrote nothing.
   */
  const journalIntent = fromPromise<JournalIntentOutput, JournalIntentInput>(async ({ input }) => {
    // readLease already refused (remote_not_configured): an intent journaled now could never be
    // sent, and on restart it would read as in doubt. Reaching here is a wiring bug.
    const remote = remoteOf(deps, input.campaignId);
    if (!remote) throw new Error('journalIntent without a remote: nothing was journaled');
    const { mutation, epoch, binding } = input;
    try {
      await deps.journal(input.campaignId, {
        requestId: input.requestId,
        action: input.kind,
        epoch,
        payloadDigest: digestPayload({ mutation, epoch, contextId: binding.contextId, taskId: binding.taskId }),
        createdAt: deps.now().toISOString(),
        ...(input.decisionId !== null ? { decisionId: input.decisionId } : {}),
      });
    } catch (error) {
      if (error instanceof JournalRefusedError && REFUSALS_ANSWERED.has(error.code)) {
        return { journaledAt: deps.now().toISOString(), refusedCode: error.code };
      }
      throw error;
    }
    crashPoint('after_intent_write');
    return { journaledAt: deps.now().toISOString(), refusedCode: null };
  });

  const relayMutation = fromPromise<RelayMutationOutput, RelayMutationInput>(async ({ input }) => {
    const { requestId, mutation, binding } = input;
    const remote = remoteOf(deps, input.campaignId);
    if (!remote) return { outcome: 'rejected', requestId, code: REMOTE_NOT_CONFIGURED, leaseLost: false };
    // Without what it acts on, send nothing: the chart's own rule (`bindingFitsMutation`), asked
    // of the target the send uses, so the rule that accepted it and this check cannot disagree.
    if (!bindingFitsMutation(mutation.kind, binding)) return { outcome: 'rejected', requestId, code: 'binding_incomplete', leaseLost: false };
    const { contextId, taskId } = binding;

    const authority = { controllerId, epoch: input.epoch, requestId };
    let result: SendResult;
    try {
      const sending = send(remote, mutation, authority, { contextId: contextId ?? '', taskId: taskId ?? '' });
      if (isArmed('after_send')) {
        // Give the request time to leave the process, then die without reading the answer.
        await new Promise((r) => setTimeout(r, AFTER_SEND_GRACE_MS));
        crashPoint('after_send');
      }
      result = await sending;
    } catch {
      // Bytes may have reached the remote before the throw: in doubt, never re-sent.
      return { outcome: 'ambiguous', requestId, code: 'relay_failed' };
    }
    crashPoint('after_response');
    return relayOutcome(result, requestId);
  });

  /** Only an authoritative answer about this very request id, and this kind of action, settles it. */
  const readBackIntent = fromPromise<ReadBackIntentOutput, ReadBackIntentInput>(async ({ input }) => {
    const unavailable: ReadBackIntentOutput = { requestId: input.requestId, status: 'unavailable', taskId: null };
    const remote = remoteOf(deps, input.campaignId);
    if (!remote || !input.readbackSupported) return unavailable;
    const r = await remote.control.requestGet({ requestId: input.requestId });
    if (!r.ok || r.value.requestId !== input.requestId) return unavailable;
    if (r.value.action !== undefined && r.value.action !== input.kind) return unavailable;
    return {
      requestId: input.requestId,
      status: r.value.status,
      taskId: r.value.status === 'applied' ? (r.value.taskId ?? null) : null,
    };
  });

  return { journalIntent, relayMutation, readBackIntent };
}
