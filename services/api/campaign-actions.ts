/**
 * One operator action, end to end: the API body becomes an operator event carrying only what
 * the operator said (every fact the chart judges is in the actor's context); `explainRefusal`
 * names the rule it breaks (409 + the guard's code) or the event is sent to the campaign's live
 * actor; the answer is built from what the actor emitted (CLAIM_SETTLED, MUTATION_REFUSED,
 * INTENT_SETTLED, READ_SETTLED). The API decides no rule itself. `allowedActions` asks the same
 * snapshot about every action's representative event.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { RemoteDescription } from '../../adapters/a2a/discovery.js';
import { explainRefusal } from '../../machines/campaign.rules.js';
import { describeStates } from '../../machines/campaign.projection.js';
import { leaseUnexpiredAt } from '../../machines/campaign.guards.js';
import type { BindMissionEvent, ObserveEvent, OperatorEvent } from '../../machines/campaign.types.js';
import type { StoreFailure } from '../../persistence/store-errors.js';
import type { KeepAnswer } from './request-gate.js';
import type { CampaignHost, SendOutcome } from '../campaign/campaign-host.js';
import type { CampaignFacts, CampaignSnapshot } from '../campaign/facts.js';
import type { ApiError } from '../contract/api-errors.js';
import type { CampaignActionBody } from './api-schemas.js';
import type { CampaignSummary, PublicEventView } from './read-model.js';
import { refusalResult } from './refusals.js';
import { fail, find, isMutation, mutationAnswer, mutationOf, ok, plain, readFailed, representative } from './action-answers.js';
import type { ApiResult } from './supervisor-api.js';

export interface CampaignActionsDeps {
  /** Why there is no remote (not configured, or not enabled); null when there is one. */
  noRemote(): ApiError | null;
  /** The remote's description, discovering it now if start-up could not. */
  description(): Promise<RemoteDescription | null>;
  /** Brings every actor's environment up to date (Argus's availability may have changed). */
  refreshEnvironment(): void;
  view(facts: CampaignFacts, snapshot: CampaignSnapshot, host: CampaignHost, allowed?: () => string[]): CampaignSummary;
  /** The campaign's public events from seq `from` on (the read model's feed). */
  eventsFrom(campaignId: string, from: number): PublicEventView[];
  /** A store failure as the answer it means (throws ApiFailure: storage_unavailable, campaign_corrupt). */
  unusable(campaignId: string, failure: StoreFailure<string>): never;
  leaseTtlSeconds: number;
  now(): Date;
}

type Action = CampaignActionBody['action'];
export const OPERATOR_ACTIONS: readonly Action[] = ['observe', 'pause', 'resume', 'close', 'answer', 'mission', 'claim', 'release', 'submit', 'intervene', 'cancel', 'resolve_intent'];
const NEEDS_REMOTE = new Set<Action>(['observe', 'claim', 'release', 'submit', 'intervene', 'cancel']);


export class CampaignActions {
  constructor(private readonly deps: CampaignActionsDeps) {}

  /** Runs one action on a hosted campaign. `keepAnswer` (Idempotency-Key): a mutation's record joins its outcome's write. */
  async act(host: CampaignHost, req: CampaignActionBody, opts: { keepAnswer?: KeepAnswer } = {}): Promise<ApiResult<unknown>> {
    const missing = NEEDS_REMOTE.has(req.action) ? this.deps.noRemote() : null;
    if (missing) return { ok: false, error: missing };
    // An answer to the remote's own question is a mutation: it needs what discovery found.
    const remoteAnswer = req.action === 'answer' && host.getSnapshot().context.pendingQuestion?.source === 'remote' && this.deps.noRemote() === null;
    if (req.action === 'claim' || isMutation(req.action) || remoteAnswer) await this.deps.description();
    this.deps.refreshEnvironment();
    if (req.action === 'observe') return this.observe(host);
    const event = this.eventFor(host, req);
    const refused = explainRefusal(host.getSnapshot(), event);
    if (refused) return refusalResult(refused, req.action);
    if (event.type === 'BIND_MISSION') return this.bindMission(host, event);
    const keep = opts.keepAnswer;
    // With an Idempotency-Key, a mutation's record (its outcome, as data) is taken when the outcome
    // is known and written in the outcome's own save; the gate renders the answer from it.
    let kept: ApiResult<unknown> | null = null;
    const record = keep && event.type === 'MUTATE' ? (o: Omit<SendOutcome, 'save'>) => keep((kept = plain(this.answer(host, event, { ...o, save: null })))) : undefined;
    const outcome = await host.send(event, record);
    if (outcome.save && !outcome.save.ok) {
      // The relay has happened: a lost outcome write leaves it in doubt, never an error inviting a retry.
      if (find(outcome.emitted, 'INTENT_SETTLED') || find(outcome.emitted, 'INTENT_AMBIGUOUS')) {
        return fail('mutation_in_doubt', 'The outcome could not be recorded; it will not be re-sent. Use resolve_intent.');
      }
      this.deps.unusable(host.id, outcome.save);
    }
    const answer = kept ?? plain(this.answer(host, event, outcome));
    if (req.action !== 'resume' || !answer.ok || this.deps.noRemote() || host.getSnapshot().context.binding.taskId === null) return answer;
    // Resume only observes and reads back; it never claims. A failed read does not undo it: the
    // resume is answered ok, with the read's failure as `read_error` (its remote code).
    const observed = await this.observe(host);
    if (observed.ok) return observed;
    const { error } = observed;
    const readError = error.code === 'read_failed' && error.read_code ? { read_error: { code: error.read_code, message: error.message } } : { observe_error: error };
    return ok({ ...(answer.value as object), ...readError });
  }

  /**
   * The actions whose representative event the actor can take now. Every fact their rules read
   * is in the snapshot, but for one time-based guard (`leaseUnexpired`) and whether there is a
   * remote at all: memoized per snapshot and those two, so no answer outlives a lease expiry.
   */
  allowedActions(host: CampaignHost, snapshot: CampaignSnapshot = host.getSnapshot()): string[] {
    return this.allowedFor(snapshot);
  }

  /** The same, for a snapshot with no actor here (a replica's view of a campaign another one hosts). */
  allowedFor(snapshot: CampaignSnapshot): string[] {
    if (snapshot.status !== 'active') return [];
    const lease = snapshot.context.lease;
    const key = `${this.deps.noRemote() === null}|${lease !== null && leaseUnexpiredAt(lease, this.deps.now().toISOString())}`;
    const memo = this.allowedMemo.get(snapshot);
    if (memo && memo.key === key) return [...memo.value];
    const value = this.computeAllowed(snapshot);
    this.allowedMemo.set(snapshot, { key, value });
    return [...value];
  }

  private readonly allowedMemo = new WeakMap<object, { key: string; value: string[] }>();

  private computeAllowed(snapshot: CampaignSnapshot): string[] {
    const allowed: string[] = [];
    // `act` refuses these before the chart is asked (supervisor_disabled, remote_not_configured).
    const noRemote = this.deps.noRemote() !== null;
    for (const action of OPERATOR_ACTIONS) {
      if (noRemote && NEEDS_REMOTE.has(action)) continue;
      const event = action === 'observe' ? this.observeEvent() : this.eventFor(null, representative(action, snapshot), snapshot);
      if (snapshot.can(event)) allowed.push(action);
    }
    return allowed;
  }

  private async observe(host: CampaignHost): Promise<ApiResult<unknown>> {
    const event = this.observeEvent();
    const refused = explainRefusal(host.getSnapshot(), event);
    if (refused) return refusalResult(refused);
    const from = this.nextSeqOf(host);
    const outcome = await host.observe(event);
    // An operator's read also proves the document readable (the heartbeat's quiet tick does not
    // read it): one that went bad meanwhile answers campaign_corrupt, never ok.
    const checked = outcome.save ?? (await host.write(() => null));
    if (!checked.ok) this.deps.unusable(host.id, checked);
    const read = find(outcome.emitted, 'READ_SETTLED');
    // A read that failed is a failure (issue 18 item 9): its code, never `ok` (it still counted toward the back-off).
    if (read?.result === 'failed') return readFailed(read.code ?? 'remote_unreachable');
    return ok({
      campaign: this.deps.view(host.facts, host.getSnapshot(), host),
      changed: outcome.save?.ok === true,
      events: this.deps.eventsFrom(host.id, from),
    });
  }

  private nextSeqOf(host: CampaignHost): number {
    const events = this.deps.eventsFrom(host.id, 0);
    return events.length ? events[events.length - 1]!.seq + 1 : 0;
  }

  /** `mission`: answered once the bind has settled (it talks to Argus: seconds, not a read). */
  private async bindMission(host: CampaignHost, event: BindMissionEvent): Promise<ApiResult<unknown>> {
    const outcome = await host.sendUntil(event, (s) => describeStates(s).attention !== 'binding');
    if (outcome.save && !outcome.save.ok) this.deps.unusable(host.id, outcome.save);
    const context = outcome.snapshot.context;
    const campaign = this.deps.view(host.facts, outcome.snapshot, host);
    if (context.argus.projectId !== null && context.lastErrorCode === null) return ok({ campaign, mission: { project_id: context.argus.projectId } });
    return fail(context.lastErrorCode === 'argus_unavailable' ? 'argus_unavailable' : 'mission_bind_failed', `Argus could not bind the campaign's project (${context.lastErrorCode ?? 'unknown'}).`);
  }

  /** An operator's read: the chart's OBSERVE table decides whether it can start now. */
  observeEvent(): ObserveEvent {
    return { type: 'OBSERVE', now: this.deps.now().toISOString() };
  }

  /** The operator event of one action: what the operator said, and the clock's now. */
  eventFor(host: CampaignHost | null, req: CampaignActionBody, snapshot = host?.getSnapshot()): OperatorEvent {
    const now = this.deps.now().toISOString();
    switch (req.action) {
      case 'pause':
        return { type: 'PAUSE' };
      case 'resume':
        return { type: 'RESUME', now };
      case 'close':
        return { type: 'CLOSE' };
      case 'answer':
        return {
          type: 'OPERATOR_ANSWER',
          questionKey: req.question_key ?? snapshot?.context.pendingQuestion?.key ?? '',
          answer: req.text,
          now,
          requestId: randomUUID(),
        };
      case 'mission':
        return { type: 'BIND_MISSION' };
      case 'resolve_intent':
        return { type: 'RESOLVE_INTENT' };
      case 'claim':
        return { type: 'OPERATOR_CLAIM', ttlSeconds: req.ttl_seconds ?? this.deps.leaseTtlSeconds, now };
      default:
        return {
          type: 'MUTATE',
          mutation: mutationOf(req),
          requestId: randomUUID(),
          epoch: req.action === 'observe' ? 0 : req.epoch,
          approval: { kind: 'operator', principal: 'api-key' },
          now,
        };
    }
  }

  /** The answer to an action from what its event caused. */
  private answer(host: CampaignHost, event: OperatorEvent, outcome: SendOutcome): ApiResult<unknown> {
    const campaign = this.deps.view(host.facts, outcome.snapshot, host);
    const e = outcome.emitted;
    if (event.type === 'OPERATOR_CLAIM') {
      const settled = find(e, 'CLAIM_SETTLED');
      if (settled?.granted) {
        const lease = outcome.snapshot.context.lease;
        return ok({ campaign, lease: { epoch: lease?.epoch ?? settled.epoch, expires_at: lease?.expiresAt ?? null } });
      }
      const code = settled?.code ?? null;
      if (code === 'lease_held') return fail('lease_held', 'Another controller holds an unexpired lease on this remote context.');
      if (code === null || code === 'lease_not_held') return fail('lease_not_held', 'The remote did not confirm the lease on readback; the campaign stays an observer.');
      return fail('remote_unavailable', `The claim failed at the remote (${code}).`);
    }
    if (event.type === 'MUTATE') return mutationAnswer(e, event.mutation.kind, campaign);
    // An answer to the remote's question went through the authority path: answered like one.
    if (event.type === 'OPERATOR_ANSWER' && (find(e, 'INTENT_SETTLED') || find(e, 'MUTATION_REFUSED') || find(e, 'INTENT_AMBIGUOUS'))) return mutationAnswer(e, 'answer', campaign);
    if (event.type === 'RESOLVE_INTENT') {
      const settled = find(e, 'INTENT_SETTLED');
      if (settled && settled.settledBy === 'readback') return ok({ campaign, request_id: settled.requestId, action: settled.kind, status: settled.status });
      return fail(
        'intent_unresolved',
        outcome.snapshot.context.environment.capabilities?.requestReadback
          ? 'The remote could not read the request back now; the campaign keeps observing. Try again later.'
          : 'The remote cannot read back request ids; reconcile at the remote service. The campaign keeps observing.',
      );
    }
    return ok({ campaign });
  }
}
