/**
 * Which model snapshot the store must hold after a group: the last one that was due a save.
 *
 * The host does not write every snapshot (docs/decisions.md: one write per material change; an
 * unchanged tick writes nothing, and neither does a mission poll: test/decisions/
 * quiet-heartbeat.test.ts "a mission in flight rides the heartbeat … no write"). Its policy,
 * restated here from those documents rather than imported (the check would otherwise approve
 * whatever the host does), is: a QUIESCENT snapshot (no `effect-in-flight` tag) is saved when,
 * since the last save,
 * - its context changed (a change of the process's environment alone is never a write: it is
 *   taken as the saved one), or
 * - its durable state changed: the status, the authority state and its step, and the attention
 *   state by its region name (its sub-states `idle.quiet` ↔ `idle.verifying` and
 *   `awaiting-review.mission` ↔ `.checking` are polls, collapsed again by any restore), or
 * - a durable event was emitted (PUBLIC_DRAFTS, WAKE_REQUESTED, CONTROL_LOST, INTENT_AMBIGUOUS,
 *   INTENT_SETTLED, DECISION_SETTLED), the same snapshot or an earlier one that was not quiescent.
 * The persisted snapshot must then equal the model's at that save EXACTLY (value and context).
 */
import type { CampaignContext } from '../../machines/campaign.types.js';
import type { CampaignEmitted } from '../../machines/campaign.emitted.js';
import type { Snap } from '../machines/campaign-traversal.js';
import { persistedOf } from './path-model.js';

const DURABLE: ReadonlySet<string> = new Set(['PUBLIC_DRAFTS', 'WAKE_REQUESTED', 'CONTROL_LOST', 'INTENT_AMBIGUOUS', 'INTENT_SETTLED', 'DECISION_SETTLED']);

const first = (v: unknown): [string, unknown] => (typeof v === 'string' ? [v, null] : v && typeof v === 'object' ? (Object.entries(v)[0] ?? ['?', null]) : ['?', null]);

/** Status, authority state and step, attention state (the region's name only). */
function durableKey(s: Snap): string {
  const value = s.value as unknown;
  if (typeof value === 'string') return `${s.status}:${value}`;
  const active = (value as { active?: { authority?: unknown; attention?: unknown } }).active;
  if (!active) return `${s.status}:${JSON.stringify(value)}`;
  const [authority, inner] = first(active.authority);
  return `${s.status}:${authority}.${first(inner)[0]}:${first(active.attention)[0]}`;
}

function onlyEnvironment(saved: CampaignContext, next: CampaignContext): boolean {
  if (saved.environment === next.environment) return false;
  return (Object.keys(next) as (keyof CampaignContext)[]).every((k) => k === 'environment' || saved[k] === next[k]);
}

export class SavePoints {
  /** The persisted snapshot the store must hold (as data). */
  private persisted: unknown;
  private savedContext: CampaignContext;
  private savedKey: string;
  private waiting: boolean;
  /** Events emitted since the last save, and those the saves since `takeSaved` carried. */
  private pending: CampaignEmitted[];
  private saved: CampaignEmitted[] = [];

  /**
   * @param onDisk the persisted snapshot the store holds now
   * @param live the model as the host rebuilt it from that (its last save, as far as it knows)
   * @param emitted what the rebuild emitted (a restore's events wait for the next save)
   */
  constructor(onDisk: unknown, live: Snap, emitted: readonly CampaignEmitted[] = []) {
    this.persisted = onDisk;
    this.savedContext = live.context;
    this.savedKey = durableKey(live);
    this.waiting = emitted.some((e) => DURABLE.has(e.type));
    this.pending = [...emitted];
  }

  /** One model step: `next`, and what the step emitted. */
  step(next: Snap, emitted: readonly CampaignEmitted[]): void {
    if (emitted.some((e) => DURABLE.has(e.type))) this.waiting = true;
    this.pending.push(...emitted);
    if (next.context !== this.savedContext && onlyEnvironment(this.savedContext, next.context)) this.savedContext = next.context;
    const key = durableKey(next);
    const changed = next.context !== this.savedContext || key !== this.savedKey;
    if (next.hasTag('effect-in-flight') || !(changed || this.waiting)) return;
    this.persisted = persistedOf(next);
    this.savedContext = next.context;
    this.savedKey = key;
    this.waiting = false;
    this.saved.push(...this.pending);
    this.pending = [];
  }

  /** What the saves since the last call carried to disk (the outbox gains their public events). */
  takeSaved(): CampaignEmitted[] {
    const saved = this.saved;
    this.saved = [];
    return saved;
  }

  get expected(): unknown {
    return this.persisted;
  }
}
