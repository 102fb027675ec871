/**
 * The host of one campaign's live actor: restored at boot from its document, it lives as long
 * as the process. It is a save port and a stop: through ONE subscription, when the snapshot is
 * quiescent (no effect in flight) and something durable changed (the context object, the state
 * outside the heartbeat region, or emitted events waiting for the outbox/journal), it hands the
 * persisted snapshot and the emitted events to the campaign's ledger as one save; when the right
 * to host is lost it stops the actor for good. An unchanged status read changes none of these:
 * no write, no document read. The effects never reach the host: their ports are the ledger's.
 * @module
 */
import { CAMPAIGN_MACHINE_VERSION, checkRestorable, isQuiescent } from '../../machines/campaign.machine.js';
import type { CampaignEmitted, CampaignEvent, HostEnvironment, ObserveEvent, OperatorEvent, TickEvent } from '../../machines/campaign.types.js';
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import type { WriteResult } from '../../persistence/campaign-store.js';
import type { StoreFailure } from '../../persistence/store-errors.js';
import type { SaveResult } from './campaign-save.js';
import { operatorAction } from './campaign-history.js';
import type { CampaignLedger } from './campaign-ledger.js';
import { isMutation } from './host-snapshots.js';
import { compactPersisted } from './actor-memory.js';
import { HostSaves } from './host-saves.js';
import { MachineRestoreError, type RestoreDeps } from './host-restore.js';
import { LiveActor } from './live-actor.js';
import { HostWaiters, readInFlight, renewalInFlight, tickBusy, type Collector, type RecordOutcome, type SendOutcome } from './host-waiters.js';
import type { CampaignFacts, CampaignSnapshot } from './facts.js';

/**
 * `fleet` (RestoreDeps): the root every campaign actor is created under, so all of them share one
 * XState actor system (its scheduler, registry and inspection) instead of one system each: ~1.8 KB
 * of live heap per campaign. It hears nothing but XState's own done/error notices. `environment`:
 * the process's facts of now (discovery, Argus's runtime, the cadence); every restore takes them.
 */
export interface CampaignHostDeps extends RestoreDeps {
  /** The campaign's durable side: its write queue, its document facts, its actor's generation. */
  ledger: CampaignLedger;
  /** After every successful save: what it appended to the outbox and the wake log. */
  onSaved(host: CampaignHost, saved: SaveResult): void;
  /** Every emitted event, durable or not (READ_SETTLED feeds metrics and `last_read_at`). */
  onEmitted(host: CampaignHost, event: CampaignEmitted): void;
  /** The view changed (context, state outside the heartbeat, binding, journal). */
  onViewChanged(host: CampaignHost): void;
  /** A write failed; a corrupt document stops the actor (reported, never replaced). */
  onWriteFailed(host: CampaignHost, failure: StoreFailure<string>): void;
}

export type { RecordOutcome, SendOutcome } from './host-waiters.js';
export { MachineRestoreError } from './host-restore.js';

export class CampaignHost extends LiveActor {
  lastReadAt: string | null = null;
  /** Memory only, like `lastReadAt`: the last failed read (`last_error.at`) and the remote's status text. */
  lastFailedRead: { code: string; at: string } | null = null;
  remoteMessage: string | null = null;
  /** Operator reads (`observe`) in flight: their READ_SETTLED is not a heartbeat tick. */
  observing = 0;
  corrupt: { code: string; reason: string } | null = null;
  /** After a rewind, nothing is saved until the next event (storage that is down is not hammered). */
  private holdSaves = false;
  private readonly deps: CampaignHostDeps;
  /** What waits for the next save, and what the last one took. */
  private readonly saves = new HostSaves();
  private readonly waiters = new HostWaiters();
  /** The live actor's generation at the ledger: a rewind supersedes it (and every write queued for it). */
  private generation: number;
  /** Set once the right to host is lost: the actor is stopped for good and every waiter gets this. */
  private lostRight: Extract<WriteResult, { ok: false }> | null = null;

  /** @throws MachineRestoreError when the snapshot's machine version is not this build's. */
  constructor(doc: CampaignDocument, deps: CampaignHostDeps) {
    super(doc.campaignId, deps);
    this.deps = deps;
    if (!doc.machine) throw new MachineRestoreError('campaign has no machine snapshot');
    // A `campaign@5` snapshot's binding lived in the document: the migration takes it from there.
    const check = checkRestorable(doc.machine, { taskId: doc.remote.taskId, contextId: doc.remote.contextId });
    if (!check.ok) throw new MachineRestoreError(`machine version ${check.version} is not ${CAMPAIGN_MACHINE_VERSION}`);
    this.durable = check.snapshot;
    this.generation = deps.ledger.adopt(doc);
    this.spawn();
  }

  protected restored(snapshot: CampaignSnapshot): void {
    this.saves.restoredAt(snapshot);
  }

  /** Starts the actor. A journaled intent without an outcome may have reached the remote: in doubt, never resent. */
  start(): void {
    this.startActor();
    const open = this.facts.openIntent;
    if (open && isMutation(open.action)) {
      // No outcome on disk: recorded as in doubt (and said so once), even if the snapshot already is.
      if (!open.outcomeRecorded) this.saves.doubt({ type: 'INTENT_AMBIGUOUS', campaignId: this.id, requestId: open.requestId, kind: open.action });
      this.actor.send({ type: 'INTENT_IN_DOUBT', requestId: open.requestId, kind: open.action });
    }
    if (this.saves.waiting) this.onSnapshot(this.actor.getSnapshot());
  }

  stop(): Promise<unknown> {
    this.stopActor();
    return this.whenWritten();
  }

  /** The document's facts as of the last write (never the whole document). */
  get facts(): CampaignFacts {
    return this.deps.ledger.facts(this.id)!;
  }

  get running(): boolean {
    return this.corrupt === null && this.lostRight === null && this.actor.getSnapshot().status === 'active';
  }

  /**
   * One heartbeat TICK; the chart decides what it means. Returns false when the tick is over
   * already (nothing started, nothing to write: no promise, no callback); otherwise `settled` is
   * called, later, once the read and the renewal THIS tick started have settled and any save
   * they caused is written. A read or renewal still in flight from an earlier beat is not
   * waited for. An unchanged read costs one request: no document read, no write.
   */
  tick(event: TickEvent, settled: () => void): boolean {
    if (!this.running) return false;
    this.holdSaves = false;
    const before = this.actor.getSnapshot();
    const wasReading = readInFlight(before);
    const wasRenewing = renewalInFlight(before);
    this.actor.send(event);
    const after = this.actor.getSnapshot();
    const read = !wasReading && readInFlight(after);
    const renewal = !wasRenewing && renewalInFlight(after);
    if (read || renewal) {
      this.waiters.waitForTick({ read, renewal, settled });
      return true;
    }
    if (this.deps.ledger.pending(this.id) === 0) return false;
    void this.whenWritten().then(settled);
    return true;
  }

  /**
   * The process's facts changed (discovery answered, Argus came or went): the chart takes them if
   * they say something new. A change of environment alone is never saved (see `onSnapshot`).
   */
  tellEnvironment(environment: HostEnvironment): void {
    if (this.running) this.actor.send({ type: 'ENVIRONMENT', environment });
  }

  /** Sends one operator event (the API checked `can()` first) and resolves with what it caused. */
  send(event: OperatorEvent | CampaignEvent, record?: RecordOutcome): Promise<SendOutcome> {
    return this.collect(event, isQuiescent, record);
  }

  /** An operator's `observe` (OBSERVE), answered once its status read has settled. */
  async observe(event: ObserveEvent): Promise<SendOutcome> {
    this.observing++;
    try {
      return await this.collect(event, (s) => !tickBusy(s));
    } finally {
      this.observing--;
    }
  }

  /** Sends one operator event and resolves once `done` holds (`mission`: when the bind has settled). */
  sendUntil(event: OperatorEvent, done: (s: CampaignSnapshot) => boolean): Promise<SendOutcome> {
    return this.collect(event, (s) => done(s) && isQuiescent(s));
  }

  private collect(event: CampaignEvent, done: (s: CampaignSnapshot) => boolean, record?: RecordOutcome): Promise<SendOutcome> {
    return new Promise<SendOutcome>((resolve) => {
      // A stopped actor hears nothing: answered at once with why, never left waiting.
      if (this.lostRight) return resolve({ emitted: [], snapshot: this.actor.getSnapshot(), save: this.lostRight });
      const collector: Collector = { done, emitted: [], record, resolve };
      this.waiters.add(collector);
      const action = operatorAction(event);
      if (action) this.saves.acted(action);
      this.holdSaves = false;
      this.actor.send(event);
      // XState processed the event synchronously; if the subscription was not told, settle now.
      if (this.waiters.has(collector)) this.onSnapshot(this.actor.getSnapshot());
    });
  }

  /** A direct document change (an Idempotency-Key answer kept on its own) through the write queue. */
  async write(change: (doc: CampaignDocument) => CampaignDocument | null): Promise<WriteResult> {
    const written = await this.deps.ledger.write(this.id, change);
    // The ledger told the system, which marks a corrupt document: its actor stops, reported.
    if (!written.ok && this.corrupt !== null) {
      this.stopActor();
      this.waiters.releaseAll(this.actor.getSnapshot(), written);
    }
    return written;
  }

  /**
   * The right to host is gone (a failed renewal, a `fence_stale` write): the actor stops where it
   * is — no rewind, no restart, nothing more saved — and whoever waits on it gets `failed`.
   */
  stopForLostRight(failed: Extract<WriteResult, { ok: false }>): void {
    if (this.lostRight) return;
    this.lostRight = failed;
    const open = this.facts.openIntent;
    const relaying = (this.actor.getSnapshot().children as Record<string, unknown>).relayMutation !== undefined;
    this.stopActor();
    // A relay on the wire when the right went: its outcome is unknown here (the new owner finds it in doubt).
    if (relaying && open && isMutation(open.action)) this.waiters.heard({ type: 'INTENT_AMBIGUOUS', campaignId: this.id, requestId: open.requestId, kind: open.action });
    this.saves.drop();
    this.waiters.releaseAll(this.actor.getSnapshot(), failed);
    this.deps.onViewChanged(this);
  }

  /** Resolves when every write queued so far has finished. */
  whenWritten(): Promise<unknown> {
    return this.deps.ledger.whenWritten(this.id);
  }

  protected onEmitted(event: CampaignEmitted): void {
    this.saves.heard(event);
    this.waiters.heard(event);
    this.deps.onEmitted(this, event);
  }

  protected onSnapshot(snapshot: CampaignSnapshot): void {
    const quiescent = isQuiescent(snapshot);
    const { stateKey, environmentOnly, changed } = this.saves.judge(snapshot);
    if (environmentOnly) this.deps.onViewChanged(this);
    const finishing = this.waiters.finishing(snapshot);
    let save: Promise<WriteResult | null> | null = null;
    if (quiescent && this.corrupt === null && this.lostRight === null && !this.holdSaves && (changed || this.saves.waiting)) {
      save = this.save(snapshot, stateKey, finishing);
    }
    if (changed) this.deps.onViewChanged(this);
    if (finishing.length) {
      const after = save ?? this.whenWritten().then(() => null);
      void after.then((result) => {
        for (const c of finishing) c.resolve({ emitted: c.emitted, snapshot, save: result });
      });
    }
    this.waiters.releaseTicks(snapshot, this.whenWritten());
    this.tellListeners(snapshot);
  }

  /** Queues one save of this quiescent snapshot with every durable event emitted since the last. */
  private async save(snapshot: CampaignSnapshot, stateKey: string, finishing: Collector[]): Promise<WriteResult | null> {
    // An Idempotency-Key record is the outcome as data, written with the outcome (never built in
    // the write). Built first: if building one threw, the events waiting for this save stay waiting.
    const records = finishing.flatMap((c) => (c.record ? [c.record({ emitted: c.emitted, snapshot })] : []));
    const taken = this.saves.take(snapshot, stateKey);
    // Taken now: the actor moves on while the write waits its turn.
    const machine = { version: CAMPAIGN_MACHINE_VERSION, snapshot: this.actor.getPersistedSnapshot() };
    const request = { ...taken, machine, binding: snapshot.context.binding, records, generation: this.generation };
    const { written, saved, superseded } = await this.deps.ledger.save(this.id, request);
    if (superseded) return written;
    if (!written.ok) {
      this.afterFailedSave(taken.emitted, written);
      return written;
    }
    this.saves.written(taken.inDoubt);
    this.durable = compactPersisted(machine.snapshot);
    if (saved) this.deps.onSaved(this, saved);
    this.deps.onViewChanged(this);
    return written;
  }

  /**
   * The snapshot and its events are not on disk, so memory must not run ahead of it: the actor
   * is rewound to the last durable snapshot (what a restart would find) and started again. An
   * intent whose outcome the write carried is open on disk, so the restart finds it in doubt:
   * never resent. What the lost write carried is derived again by the next read.
   */
  private afterFailedSave(emitted: CampaignEmitted[], failed: Extract<WriteResult, { ok: false }>): void {
    this.deps.onWriteFailed(this, failed);
    // Another process hosts the campaign now: rewinding would run a second actor beside its own.
    if (failed.code === 'fence_stale' || this.lostRight) return this.stopForLostRight(failed);
    this.stopActor();
    this.saves.drop();
    this.waiters.releaseAll(this.actor.getSnapshot(), failed);
    if (this.corrupt !== null) return;
    if (emitted.some((e) => e.type === 'INTENT_SETTLED')) this.saves.outcomeUnrecorded();
    this.generation = this.deps.ledger.supersede(this.id);
    this.spawn();
    this.holdSaves = true;
    this.start();
    this.deps.onViewChanged(this);
  }

}
