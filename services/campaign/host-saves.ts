/**
 * What the host remembers between two saves of its campaign: the durable events emitted since
 * the last save, what caused them (operator actions, a read that changed or failed), the context
 * and durable state the last save took, and the intent it still has to record as in doubt. It
 * decides whether a snapshot is due a save and builds that save's data; it writes nothing.
 * @module
 */
import type { CampaignContext, CampaignEmitted } from '../../machines/campaign.types.js';
import { isDurable } from './campaign-save.js';
import type { CampaignSnapshot } from './facts.js';
import { durableStateKey, onlyEnvironmentChanged } from './host-snapshots.js';

/** A snapshot judged against the last save. */
export interface SaveJudgement {
  stateKey: string;
  /** Only the process's environment changed since the last save (a view change, never a write). */
  environmentOnly: boolean;
  /** The context or the durable state moved since the last save. */
  changed: boolean;
}

export class HostSaves {
  private pending: CampaignEmitted[] = [];
  private actions: string[] = [];
  private read = false;
  private savedContext: unknown = null;
  private savedStateKey = '';
  /** Why an intent that turns ambiguous without a relay answer is in doubt. */
  private doubtCode = 'restart_in_doubt';
  /** The intent told INTENT_IN_DOUBT whose open journal entry the next save records as ambiguous. */
  private inDoubt: string | null = null;

  /** The actor was (re)built from this snapshot: it is what is on disk. */
  restoredAt(snapshot: CampaignSnapshot): void {
    this.savedContext = snapshot.context;
    this.savedStateKey = durableStateKey(snapshot);
  }

  heard(event: CampaignEmitted): void {
    if (isDurable(event)) this.pending.push(event);
    if (event.type === 'READ_SETTLED' && event.result !== 'unchanged') this.read = true;
  }

  acted(action: string): void {
    this.actions.push(action);
  }

  /** An open intent found at start with no outcome on disk: recorded ambiguous by the next save. */
  doubt(event: Extract<CampaignEmitted, { type: 'INTENT_AMBIGUOUS' }>): void {
    this.inDoubt = event.requestId;
    this.pending.push(event);
  }

  get waiting(): boolean {
    return this.pending.length > 0;
  }

  judge(snapshot: CampaignSnapshot): SaveJudgement {
    const stateKey = durableStateKey(snapshot);
    // The environment is the process's, replaced on every restore: a change of it alone is no write.
    const environmentOnly = snapshot.context !== this.savedContext && onlyEnvironmentChanged(this.savedContext as CampaignContext, snapshot.context);
    if (environmentOnly) this.savedContext = snapshot.context;
    return { stateKey, environmentOnly, changed: snapshot.context !== this.savedContext || stateKey !== this.savedStateKey };
  }

  /** The save of this snapshot: everything emitted and done since the last, which now counts as saved. */
  take(snapshot: CampaignSnapshot, stateKey: string) {
    const save = { emitted: this.pending, trigger: { operator: this.actions, read: this.read }, doubtCode: this.doubtCode, inDoubt: this.inDoubt };
    this.pending = [];
    this.actions = [];
    this.read = false;
    this.savedContext = snapshot.context;
    this.savedStateKey = stateKey;
    return save;
  }

  /** The save that carried `inDoubt` is on disk. */
  written(inDoubt: string | null): void {
    if (this.inDoubt === inDoubt) this.inDoubt = null;
  }

  /** Nothing waiting is saved any more (the actor stopped, or is rewound). */
  drop(): void {
    this.pending = [];
    this.inDoubt = null;
  }

  /** A lost write carried a relay's outcome: the rewound actor finds the intent in doubt for that reason. */
  outcomeUnrecorded(): void {
    this.doubtCode = 'outcome_unrecorded';
  }
}
