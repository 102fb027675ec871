/**
 * The events the campaign actor emits: the host turns them into journal entries, public
 * events and wake-log records (durable ones are saved with the snapshot that follows them).
 * @module
 */
import type { MutationKind } from './campaign.nouns.js';
import type { DecisionRecord } from './campaign.argus.js';
import type { PublicEventDraft, WakeRequest } from './vocabulary.js';

export type IntentStatus = 'applied' | 'rejected' | 'not_applied' | 'ambiguous';

export type CampaignEmitted =
  /** Exactly one per loss: the host publishes one CRITICAL. */
  | { type: 'CONTROL_LOST'; campaignId: string; reason: string; epoch: number | null; heldSince: string | null }
  /** A mutation's outcome is unknown: local control is dropped and replay is blocked. */
  | { type: 'INTENT_AMBIGUOUS'; campaignId: string; requestId: string; kind: MutationKind }
  | { type: 'WAKE_REQUESTED'; campaignId: string; wake: WakeRequest }
  /** Public drafts the reducer produced for a read (the outbox numbers and dedupes them). */
  | { type: 'PUBLIC_DRAFTS'; campaignId: string; drafts: PublicEventDraft[] }
  /** A claim finished: granted (with the epoch) or refused with the stable code why. */
  | { type: 'CLAIM_SETTLED'; campaignId: string; granted: boolean; epoch: number | null; code: string | null }
  /** A MUTATE was refused after it was accepted (readback, send margin, journal): nothing was sent. */
  | { type: 'MUTATION_REFUSED'; campaignId: string; requestId: string; code: string; journaled: boolean }
  /** The journal must record this outcome, in the same write as the snapshot that follows it. */
  | {
      type: 'INTENT_SETTLED';
      campaignId: string;
      requestId: string;
      kind: MutationKind;
      status: IntentStatus;
      code: string | null;
      settledBy: 'response' | 'readback';
      taskId: string | null;
    }
  /** A decision boundary settled: the wake log records how (`interrupted`, `relayed`, …). */
  | { type: 'DECISION_SETTLED'; campaignId: string; decision: DecisionRecord }
  /** The status read finished (changed or not): the host counts it and stamps `last_read_at`. */
  /** `answeredAt` null: nothing reached the wire. `message`: the remote's status text (memory only). */
  | { type: 'READ_SETTLED'; campaignId: string; result: 'unchanged' | 'changed' | 'failed'; code: string | null; at: string; answeredAt: string | null; message: string | null };

