/**
 * The durable side of every hosted campaign, and the one port its effects and its host write
 * through: the campaign's write queue (intent journal writes, saves and direct changes run one at
 * a time, in order), the few document facts the views and the decision effects read, and the
 * generation of the live actor. Effects reach the document only here (`journal`,
 * `publishedKeys`, `facts`); none of them calls back into the host that invoked it.
 *
 * The generation fences a rewind: when a failed save rewinds a campaign's actor, the host
 * supersedes the old generation, and every write queued for it (a save of a snapshot that no
 * longer exists, an intent journaled for an actor that will never relay it) is refused.
 * @module
 */
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import type { CampaignDocuments, WriteResult } from '../../persistence/campaign-store.js';
import { recordIntent } from '../../persistence/intent-journal.js';
import { rememberAnswer, type IdempotencyRecord } from '../../persistence/idempotency.js';
import { failure, type StoreFailure } from '../../persistence/store-errors.js';
import { crashPoint } from '../faults/fault-points.js';
import { JournalRefusedError, type JournalIntentRecord } from '../authority/authority-ports.js';
import { applySave, type SaveInput, type SaveResult } from './campaign-save.js';
import { factsOf, type CampaignFacts } from './facts.js';
import { WriteQueue } from './write-queue.js';

export interface LedgerHooks {
  /** A write failed (the host decides what the failure means for its actor). */
  onWriteFailed(campaignId: string, failure: StoreFailure<string>): void;
  /** An intent was journaled (the campaign's facts now show it open). */
  onJournaled(campaignId: string): void;
}

/** One save: the persisted snapshot and what the actor emitted since the last, of one actor generation. */
export interface SaveRequest extends Omit<SaveInput, 'now'> {
  generation: number;
  /** Idempotency-Key records of the outcomes this save carries: plain data, kept in the same write. */
  records: readonly IdempotencyRecord[];
}

/** `superseded`: not written, and nothing failed (the actor it was of is gone). */
export type SaveAnswer = { written: WriteResult; saved: SaveResult | null; superseded?: true };

/** A campaign's queue, with its facts and live generation: one object per campaign. */
class LedgerEntry extends WriteQueue {
  generation = 0;
  constructor(public facts: CampaignFacts) {
    super();
  }
}

const superseded = () => failure('io_failed', 'not written: an earlier write of this campaign failed and its actor was rewound');

export class CampaignLedger {
  private readonly entries = new Map<string, LedgerEntry>();

  constructor(
    private readonly store: CampaignDocuments,
    private readonly now: () => Date,
    private readonly hooks: LedgerHooks,
  ) {}

  /** Takes a loaded (or just created) document's facts; returns its actor's generation. */
  adopt(doc: CampaignDocument): number {
    const entry = this.entries.get(doc.campaignId);
    if (entry) entry.facts = factsOf(doc);
    else this.entries.set(doc.campaignId, new LedgerEntry(factsOf(doc)));
    return this.entry(doc.campaignId).generation;
  }

  /** A campaign whose actor could not be restored (reported corrupt): no entry stays behind. */
  forget(campaignId: string): void {
    this.entries.delete(campaignId);
  }

  facts(campaignId: string): CampaignFacts | undefined {
    return this.entries.get(campaignId)?.facts;
  }

  /** A new generation of the campaign's actor (after a rewind): writes queued for the old one are refused. */
  supersede(campaignId: string): number {
    return ++this.entry(campaignId).generation;
  }

  /** Writes queued and not finished. */
  pending(campaignId: string): number {
    return this.entries.get(campaignId)?.pending ?? 0;
  }

  whenWritten(campaignId: string): Promise<void> {
    return this.entries.get(campaignId)?.whenWritten() ?? Promise.resolve();
  }

  /**
   * The journal write of `journalIntent`: durable (fsynced) before the relay sends anything.
   * Rejects with a JournalRefusedError when the journal refuses the intent, otherwise with the failure.
   */
  journal(campaignId: string, intent: JournalIntentRecord): Promise<void> {
    const entry = this.entry(campaignId);
    // Of the generation that asked: if a failed save rewinds the actor meanwhile, the actor that
    // would relay this intent is gone, and an intent journaled for nobody blocks every later mutation.
    const generation = entry.generation;
    return entry.enqueue(async () => {
      if (generation !== entry.generation) throw new Error('journal_superseded');
      let refused: string | null = null;
      const written = await this.store.transact(campaignId, (doc) => {
        const recorded = recordIntent(doc, intent);
        if (!recorded.ok) refused = recorded.code;
        return recorded.ok ? recorded.doc : null;
      });
      if (!written.ok) {
        this.hooks.onWriteFailed(campaignId, written);
        throw new Error(written.code);
      }
      if (refused) throw new JournalRefusedError(refused);
      entry.facts = factsOf(written.doc);
      this.hooks.onJournaled(campaignId);
    });
  }

  /** Published dedupe keys, read from the document (a material read only), after pending writes. */
  publishedKeys(campaignId: string): Promise<ReadonlySet<string>> {
    return this.entry(campaignId).enqueue(async () => {
      const loaded = await this.store.load(campaignId);
      if (!loaded.ok) throw new Error(loaded.code);
      return new Set(loaded.doc.outbox.publishedKeys);
    });
  }

  /**
   * The document once every write queued so far is on disk. Waited for, not queued: a read is
   * not a write, and a tick must not wait for it.
   */
  async load(campaignId: string): ReturnType<CampaignDocuments['load']> {
    await this.whenWritten(campaignId);
    return this.store.load(campaignId);
  }

  /** A direct document change (an Idempotency-Key answer kept on its own; null: none, a readability check). */
  write(campaignId: string, change: (doc: CampaignDocument) => CampaignDocument | null): Promise<WriteResult> {
    const entry = this.entry(campaignId);
    return entry.enqueue(async () => {
      const written = await this.store.transact(campaignId, change);
      if (written.ok) entry.facts = factsOf(written.doc);
      else this.hooks.onWriteFailed(campaignId, written);
      return written;
    });
  }

  /** Queues one save; refused unwritten when its generation was superseded before its turn. */
  save(campaignId: string, request: SaveRequest): Promise<SaveAnswer> {
    const entry = this.entry(campaignId);
    const carriesOutcome = request.emitted.some((e) => e.type === 'INTENT_SETTLED');
    return entry.enqueue(async () => {
      // An earlier save failed and rewound the actor: this snapshot is of an actor that no longer
      // exists, so writing (or confirming) it would put the disk ahead of the live actor.
      if (request.generation !== entry.generation) return { written: superseded(), saved: null, superseded: true };
      // The chaos qualification kills the process here: the relay answered, its outcome is not on disk.
      if (carriesOutcome) crashPoint('before_outcome_write');
      let saved: SaveResult | null = null;
      const written = await this.store.transact(campaignId, (doc) => {
        saved = applySave(doc, { ...request, now: this.now() });
        const { doc: next } = saved;
        return request.records.length ? { ...next, idempotency: request.records.reduce(rememberAnswer, next.idempotency) } : next;
      });
      // A failed save is the host's to handle (it rewinds or stops its actor).
      if (!written.ok) return { written, saved: null };
      entry.facts = factsOf(written.doc);
      return { written, saved: saved ? { ...(saved as SaveResult), doc: written.doc } : null };
    });
  }

  private entry(campaignId: string): LedgerEntry {
    const entry = this.entries.get(campaignId);
    if (!entry) throw new Error(`campaign ${campaignId} is not hosted`);
    return entry;
  }
}
