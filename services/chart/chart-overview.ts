/**
 * The operator overview: the campaign machine reduced to the states a person acts on (the
 * spec's observing, controlling, awaiting-review, needs-you, control-lost, ambiguous-intent,
 * with idle, paused and closed) and the arrows between them, each labelled in words ("claim",
 * "lease lost", "answer") and tagged by who causes it: the operator, the remote, the lease,
 * Argus or the supervisor itself.
 *
 * It is a projection of the same model the full chart draws (`chartModel`), never a second
 * drawing: every transition of the model is mapped to the overview state that holds its source
 * and its target; transient states fold into a neighbour (`claiming` into observing, Argus's
 * `binding`/`assessing` into idle); a transition that stays inside one overview state (a lease
 * renewal, a relay step) is not drawn. Every drawn transition must have its words in WORDS: a
 * test fails for a new event the overview cannot name, so a change to the machine shows here.
 * @module
 */
import type { ChartEdge, ChartModel } from './chart-model.js';

export type Cause = 'operator' | 'remote' | 'lease' | 'argus' | 'supervisor';

export interface OverviewState {
  id: string;
  label: string;
  /** One short line saying what the state means for the operator. */
  hint: string;
  lane: 'authority' | 'attention' | null;
  /** Model states drawn as this one (lit when the campaign is in any of them). */
  covers: string[];
}

export interface OverviewArrow {
  id: string;
  source: string;
  target: string;
  /** Distinct words, in the machine's order. */
  words: string[];
  causes: Cause[];
  /** The model transitions it stands for (`ChartEdge.id`). */
  edges: string[];
}

export interface OverviewLane {
  id: string;
  label: string;
}

export interface Overview {
  lanes: OverviewLane[];
  states: OverviewState[];
  arrows: OverviewArrow[];
}

const A = 'campaign.active.authority';
const T = 'campaign.active.attention';

export const OVERVIEW_LANES: OverviewLane[] = [
  { id: A, label: 'Authority: may this supervisor send?' },
  { id: T, label: 'Attention: who must act?' },
];

export const OVERVIEW_STATES: OverviewState[] = [
  { id: `${A}.observing`, label: 'observing', hint: 'reads only', lane: 'authority', covers: [`${A}.claiming`] },
  { id: `${A}.controlling`, label: 'controlling', hint: 'holds the lease', lane: 'authority', covers: [] },
  { id: `${A}.control-lost`, label: 'control-lost', hint: 'lease gone', lane: 'authority', covers: [] },
  { id: `${A}.ambiguous-intent`, label: 'ambiguous-intent', hint: 'a send in doubt', lane: 'authority', covers: [] },
  { id: `${T}.idle`, label: 'idle', hint: 'nothing to do', lane: 'attention', covers: [`${T}.binding`, `${T}.assessing`] },
  { id: `${T}.awaiting-review`, label: 'awaiting-review', hint: 'Argus decides', lane: 'attention', covers: [] },
  { id: `${T}.needs-you`, label: 'needs-you', hint: 'you answer', lane: 'attention', covers: [] },
  { id: 'campaign.paused', label: 'paused', hint: 'no reads', lane: null, covers: [] },
  { id: 'campaign.closed', label: 'closed', hint: 'final', lane: null, covers: [] },
];

/**
 * Words and cause per event, optionally per overview target (`EVENT>target label`), looked up
 * first with the target. Actor events keep XState's `xstate.done.actor.` / `error.actor.` names.
 */
export const WORDS: Record<string, [string, Cause]> = {
  OPERATOR_CLAIM: ['claim', 'operator'],
  'xstate.done.actor.claimLease>controlling': ['claim', 'operator'],
  PAUSE: ['pause', 'operator'],
  RESUME: ['resume', 'operator'],
  CLOSE: ['close', 'operator'],
  OPERATOR_ANSWER: ['answer', 'operator'],
  LEASE_READBACK: ['lease lost', 'lease'],
  LEASE_LAPSED: ['lease lost', 'lease'],
  // A beat past the renewal deadline gives the lease up before it expires (issue 18 item 1).
  'TICK>control-lost': ['lease lost', 'lease'],
  'xstate.done.actor.renewLease': ['lease lost', 'lease'],
  'xstate.error.actor.renewLease': ['lease lost', 'lease'],
  'xstate.done.actor.readLease': ['lease lost', 'lease'],
  // A replica's takeover whose epoch rotation found the lease gone, too late or could not finish (issue 22 part 4).
  'HOSTING_TAKEN_OVER>control-lost': ['lease lost', 'lease'],
  'xstate.error.actor.readLease': ['lease lost', 'lease'],
  'xstate.done.actor.rotateLease': ['lease lost', 'lease'],
  'xstate.error.actor.rotateLease': ['lease lost', 'lease'],
  'xstate.done.actor.relayMutation>observing': ['release', 'operator'],
  'xstate.done.actor.relayMutation>control-lost': ['lease lost', 'lease'],
  'xstate.done.actor.relayMutation>ambiguous-intent': ['send in doubt', 'remote'],
  'xstate.error.actor.relayMutation': ['send in doubt', 'remote'],
  INTENT_IN_DOUBT: ['send in doubt', 'supervisor'],
  'xstate.done.actor.readBackIntent': ['settled by readback', 'remote'],
  'REMOTE_OBSERVED>needs-you': ['remote asks', 'remote'],
  'REMOTE_OBSERVED>awaiting-review': ['remote news', 'remote'],
  'REMOTE_OBSERVED>idle': ['question withdrawn', 'remote'],
  REMOTE_ANSWERED: ['answered', 'remote'],
  'always>awaiting-review': ['wake Argus', 'supervisor'],
  'always>needs-you': ['Argus asks', 'argus'],
  'xstate.done.actor.foremanAssess>awaiting-review': ['wake Argus', 'supervisor'],
  'xstate.error.actor.foremanAssess>awaiting-review': ['wake Argus', 'supervisor'],
  'xstate.done.actor.foremanAssess>needs-you': ['escalated', 'supervisor'],
  'xstate.done.actor.argusTurn>needs-you': ['Argus asks', 'argus'],
  'xstate.error.actor.argusTurn>needs-you': ['Argus asks', 'argus'],
  'xstate.done.actor.argusTurn>idle': ['Argus done', 'argus'],
  'xstate.done.actor.argusCheck>needs-you': ['Argus asks', 'argus'],
  'xstate.done.actor.argusCheck>idle': ['Argus done', 'argus'],
  'TICK>needs-you': ['deadline passed', 'supervisor'],
  'TICK>awaiting-review': ['decision held', 'supervisor'],
};

/**
 * A transient state an arrow passes through: an arrow INTO it is drawn to where it leads when it
 * succeeds (a claim ends in controlling), an arrow OUT of it from the state it covers.
 */
const VIA: Record<string, string> = { [`${A}.claiming`]: `${A}.controlling` };

/** The overview state a model state is drawn as (itself, an ancestor, or the one covering it). */
export function overviewStateOf(modelId: string): OverviewState | null {
  for (const s of OVERVIEW_STATES) {
    const under = [s.id, ...s.covers].some((id) => modelId === id || modelId.startsWith(`${id}.`));
    if (under) return s;
  }
  return null;
}

export function wordsFor(edge: ChartEdge, target: OverviewState): [string, Cause] | null {
  const event = edge.event ?? 'always';
  return WORDS[`${event}>${target.label}`] ?? WORDS[event] ?? null;
}

/** A transition the overview draws: from one overview state to another, in words. */
export interface ProjectedEdge {
  edge: ChartEdge;
  source: OverviewState;
  target: OverviewState;
  words: [string, Cause] | null;
}

/** Every model transition that crosses between two overview states (self-loops dropped). */
export function projectEdges(model: ChartModel): ProjectedEdge[] {
  const out: ProjectedEdge[] = [];
  for (const edge of model.edges) {
    if (edge.internal) continue;
    const source = overviewStateOf(edge.source);
    if (!source) continue; // a region or the root: its arrows are drawn from the states below
    for (const targetId of edge.targets) {
      const target = overviewStateOf(VIA[targetId] ?? targetId);
      if (!target || target === source) continue;
      out.push({ edge, source, target, words: wordsFor(edge, target) });
    }
  }
  return out;
}

const CAUSE_ORDER: Cause[] = ['operator', 'remote', 'lease', 'argus', 'supervisor'];

/**
 * The overview of a model. One arrow per (source, target); an arrow taken with the same words
 * from every state of a lane is drawn once, from the lane (PAUSE leaves any authority state).
 */
export function chartOverview(model: ChartModel): Overview {
  const present = new Set(model.nodes.map((n) => n.id));
  const states = OVERVIEW_STATES.filter((s) => present.has(s.id));
  const groups = new Map<string, OverviewArrow>();
  const projected = projectEdges(model).filter((p) => p.words !== null);
  const add = (source: string, target: string, p: ProjectedEdge) => {
    const key = `${source}->${target}`;
    const arrow = groups.get(key) ?? { id: `o${groups.size}`, source, target, words: [], causes: [], edges: [] };
    const [word, cause] = p.words!;
    if (!arrow.words.includes(word)) arrow.words.push(word);
    if (!arrow.causes.includes(cause)) arrow.causes.push(cause);
    arrow.edges.push(p.edge.id);
    groups.set(key, arrow);
  };
  for (const lane of OVERVIEW_LANES) {
    const members = states.filter((s) => s.id.startsWith(`${lane.id}.`));
    for (const p of projected) {
      if (!p.source.id.startsWith(`${lane.id}.`) || p.target.id.startsWith(`${lane.id}.`)) continue;
      const from = new Set(projected.filter((q) => q.target === p.target && q.words![0] === p.words![0] && q.source.id.startsWith(`${lane.id}.`)).map((q) => q.source.id));
      if (members.every((m) => from.has(m.id))) (p as ProjectedEdge & { lane?: string }).lane = lane.id;
    }
  }
  for (const p of projected) add((p as ProjectedEdge & { lane?: string }).lane ?? p.source.id, p.target.id, p);
  const arrows = [...groups.values()].map((a) => ({ ...a, causes: [...a.causes].sort((x, y) => CAUSE_ORDER.indexOf(x) - CAUSE_ORDER.indexOf(y)) }));
  return { lanes: OVERVIEW_LANES.filter((l) => present.has(l.id)), states, arrows };
}
