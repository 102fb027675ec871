/**
 * The campaign's memory of its decision boundaries (Argus and Foreman), the typed input and
 * output of the five decision effects, and the pure functions the attention region decides
 * with. Plain data only. The verdict rule itself is `argus.verdict.ts`; the Foreman mapping is
 * `foreman.directives.ts`.
 * @module
 */
import { judgeProposal, type ArgusProposalKind, type Verdict, type VerdictBacklogItem, type VerdictInput, type VerdictJournalEntry, type VerdictProposalRead } from './argus.verdict.js';
import type { ForemanDirective } from './foreman.directives.js';
import type { Mutation, RemoteView } from './campaign.nouns.js';
import type { ReasonCode, SignificantEventClass } from './vocabulary.js';

/** The decision-worthy event Argus is woken for (at most one `argus_message` per key). */
export interface ArgusWake {
  /** The wake's dedupe key: what `wakes.lastArgusEventKey` and a review approval name. */
  dedupeKey: string;
  /** The same key in Argus's alphabet (`argusEventKey`): the envelope's EVENT_KEY. */
  eventKey: string;
  /** Who the event asked for: Argus, or Foreman first (evidence). */
  target: 'argus' | 'foreman';
  reason: ReasonCode;
  eventClass: SignificantEventClass | null;
  /** Foreman's directive and reason for this event, when it was assessed first (a hint only). */
  foremanHint: string | null;
  /** Argus could run when the event was taken up (runtime available, binding live). */
  argusReady: boolean;
  /** The operator's answer to an Argus question (null for a remote event). */
  answer: { itemId: string | null; question: string; text: string } | null;
}

/** How a decision boundary settled: what the view shows and the wake log records. */
export type DecisionOutcome =
  | 'relayed' // approved by its own Reviewer and handed to the authority path
  | 'approved' // approved, nothing to relay (an `observe` proposal)
  | 'held' // approved, waiting for the lease ("claim to apply")
  | 'refused' // approved, but a mutation rule refused it
  | 'consumed' // approved, but this decision id was applied (or is in doubt) already
  | 'rejected' // the verdict rule refused it (its code says why)
  | 'chat' // Argus answered without dispatching anything
  | 'question' // Argus asked the operator
  | 'timeout' // the turn exceeded its budget
  | 'failed' // the turn failed (its code says why)
  | 'unsettled' // the mission did not settle before the mission deadline
  | 'interrupted' // a restart (or a pause) found the turn in flight: never replayed
  | 'assessed'; // Foreman only: CONTINUE or FINISH, nobody woken

export interface DecisionRecord {
  /** The wake's dedupe key (the wake log's entry) and its Argus event key. */
  dedupeKey: string;
  eventKey: string;
  outcome: DecisionOutcome;
  code: string | null;
  decisionId: string | null;
  kind: ArgusProposalKind | null;
  /** Foreman's directive when the boundary was Foreman's alone. */
  directive: ForemanDirective | null;
  at: string;
}

/** A Reviewer-approved proposal waiting for a controlling lease. */
export interface HeldDecision {
  eventKey: string;
  decisionId: string;
  mutation: Mutation;
}

export interface ArgusMemory {
  /** The mission binding (the `mission` action): the campaign's Argus project. */
  projectId: string | null;
  /** False after every restore until `argus_status` answers for the project again. */
  bindingVerified: boolean;
  /** The bound project stopped answering: one CRITICAL, no autonomous turn until `mission` again. */
  bindingLost: boolean;
  /** The event being decided (or assessed). */
  wake: ArgusWake | null;
  /** A newer decision-worthy event that arrived while one was being decided: taken up next. */
  queued: ArgusWake | null;
  /** The turn was sent for this wake (dedupe key): a re-entry (resume) never sends it again. */
  sentFor: string | null;
  /** Foreman was started for this wake (dedupe key): a re-entry never starts it again. */
  assessedFor: string | null;
  /** The dispatched mission, once the turn returned a backlog item. */
  mission: { dedupeKey: string; eventKey: string; itemId: string | null; wokeAt: string; deadlineAt: string } | null;
  /** Numbers the receipts the chart issues (their question keys). */
  receipts: number;
  held: HeldDecision | null;
  last: DecisionRecord | null;
}

/** A campaign that never met Argus shares this one frozen value (every change assigns a new one). */
export const NO_ARGUS_YET: Readonly<ArgusMemory> = Object.freeze(initialArgusMemoryFresh());

export function initialArgusMemory(): ArgusMemory {
  return NO_ARGUS_YET as ArgusMemory;
}

function initialArgusMemoryFresh(): ArgusMemory {
  return {
    projectId: null,
    bindingVerified: true,
    bindingLost: false,
    wake: null,
    queued: null,
    sentFor: null,
    assessedFor: null,
    mission: null,
    receipts: 0,
    held: null,
    last: null,
  };
}

// ---- the decision effects' input and output ---------------------------------------------------

export interface ArgusTurnInput {
  campaignId: string;
  projectId: string;
  wake: ArgusWake;
  remote: RemoteView | null;
  /** The remote's own question, when it is blocked (untrusted text: the envelope's block only). */
  remoteQuestion: string | null;
}
/** `wokeAt`: the clock before the message left (a verdict must come after it). */
export type ArgusTurnOutput =
  | { ok: true; wokeAt: string; deadlineAt: string; turn: { kind: 'chat' } | { kind: 'task'; itemId: string | null } | { kind: 'pending_question'; itemId: string | null; question: string } }
  | { ok: false; wokeAt: string; code: string };

export interface ArgusCheckInput {
  campaignId: string;
  projectId: string;
  eventKey: string;
}
export type ArgusCheckOutput =
  | {
      ok: true;
      at: string;
      journal: VerdictJournalEntry[];
      backlog: VerdictBacklogItem[];
      pendingQuestions: { itemId: string; question: string }[];
      proposal: VerdictProposalRead;
      /** The found proposal's decision id is in the intent journal already. */
      consumed: boolean;
      /** A fresh request id for the mutation, should the chart relay one (the chart owns every other fact). */
      requestId: string;
    }
  | { ok: false; at: string; code: string };

export interface ForemanAssessInput {
  campaignId: string;
  wake: ArgusWake;
  remote: RemoteView | null;
  attemptsSubmitted: number;
  maxAttempts: number;
}
export type ForemanAssessOutput = { ok: true; directive: ForemanDirective; reason: string; at: string } | { ok: false; code: string; at: string };

export interface BindMissionInput {
  campaignId: string;
  /** The binding to re-attach (kept if it still answers), else null: a project is created. */
  projectId: string | null;
}
export type BindMissionOutput = { ok: true; projectId: string } | { ok: false; code: string };

export interface VerifyBindingInput {
  projectId: string;
}
/** `definite`: the project itself is gone (a runtime that cannot run now is not a lost binding). */
export type VerifyBindingOutput = { ok: true } | { ok: false; code: string; definite: boolean };

// ---- pure helpers the guards and actions share ------------------------------------------------

/** The verdict of the dispatched mission, from the check's answer (the rule is argus.verdict.ts). */
export function verdictOf(memory: ArgusMemory, latestEventKey: string | null, output: ArgusCheckOutput): Verdict {
  if (!output.ok || memory.mission === null) return { status: 'pending' };
  const input: VerdictInput = {
    eventKey: memory.mission.eventKey,
    wokeAt: memory.mission.wokeAt,
    dispatchedItemId: memory.mission.itemId,
    latestEventKey: latestEventKey === null ? null : argusEventKey(latestEventKey),
    proposal: output.proposal,
    journal: output.journal,
    backlog: output.backlog,
    pendingQuestions: output.pendingQuestions,
  };
  return judgeProposal(input);
}

/** The remote mutation an approved proposal asks for (an `observe` asks for none). */
export function mutationOfVerdict(verdict: Verdict): Mutation | null {
  if (verdict.status !== 'approved') return null;
  switch (verdict.kind) {
    case 'submit':
      return verdict.text ? { kind: 'submit', text: verdict.text } : null;
    case 'intervene':
      return verdict.instruction ? { kind: 'intervene', instruction: verdict.instruction } : null;
    case 'cancel':
      return { kind: 'cancel', reason: `Argus decision ${verdict.decisionId}` };
    case 'observe':
      return null;
  }
}

/** The Foreman hint the envelope carries: the directive and its (capped, sanitized) reason. */
export const foremanHint = (directive: ForemanDirective, reason: string): string => `${directive}: ${reason}`.slice(0, 500);

/** The kinds of NEEDS_YOU the chart raises itself; the key is `<kind>-<n>` (short, Argus-safe). */
export type ReceiptKind = 'interrupted' | 'timeout' | 'failed' | 'unsettled' | 'apply' | 'refused' | 'escalated';

/** Event keys Argus may see (and a decision file may be named after): adapters/argus EVENT_KEY_PATTERN. */
const ARGUS_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/** FNV-1a, 32 bits: a short, stable, pure tag (not a security boundary: the key is ours). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/**
 * The Argus event key of a wake's dedupe key: the same string when it is already in Argus's
 * alphabet, else the key with every other character replaced and a tag of the original (a
 * dedupe key may carry `#`, `@`, `+`, `~`), so two dedupe keys never share an event key.
 */
export function argusEventKey(dedupeKey: string): string {
  if (ARGUS_KEY.test(dedupeKey)) return dedupeKey;
  return `${dedupeKey.replace(/[^A-Za-z0-9._:-]/g, '-').slice(0, 110)}.${fnv1a(dedupeKey)}`;
}
