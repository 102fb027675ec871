/**
 * The statechart as data, read from the machine definition itself (never a hand-drawn copy):
 * every state node and every transition of `machine.root`, walked directly because
 * `machine.definition`/`toJSON()` drop `always` and `xstate/graph` draws targetless transitions
 * as self-loops and omits `always` too.
 *
 * Guards keep their names: a named guard (`'readDue'`, `{ type: 'statusRead', params }`) by its
 * name, a composition (`and([...])`, `not(...)`, `or(...)`, `stateIn(...)`) by the names inside
 * it. Only an anonymous inline function has no name to show (`inline`).
 * @module
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { campaignMachine } from '../../machines/campaign.machine.js';

export type ChartNodeType = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

export interface ChartInvoke {
  id: string;
  /** The actor's name in `setup({ actors })`; `inline` when the logic was given in place. */
  src: string;
}

export interface ChartNode {
  /** The state node id (`campaign.active.authority.observing`): what `data-state` carries. */
  id: string;
  key: string;
  parent: string | null;
  type: ChartNodeType;
  /** The initial child's id (compound states only). */
  initial: string | null;
  invokes: ChartInvoke[];
  /** A child of a parallel state: one orthogonal region. */
  region: boolean;
  history?: 'shallow' | 'deep';
  description?: string;
}

/**
 * What triggers a transition: an ordinary event, an invoked actor's completion or failure
 * (`xstate.done.actor.<id>` / `xstate.error.actor.<id>`), a delay (`xstate.after.*`), a child
 * reaching its final state (`xstate.done.state.*`), or nothing (`always`).
 */
export type ChartEdgeKind = 'event' | 'done' | 'error' | 'after' | 'done-state' | 'always';

export interface ChartEdge {
  /** `<source>:<event or always>:<n>`, n counting that source's candidates for that trigger. */
  id: string;
  source: string;
  /** Empty for a targetless transition (actions only, no exit, no entry). */
  targets: string[];
  /** The event type as the machine spells it; null for an `always` transition. */
  event: string | null;
  guard: string | null;
  kind: ChartEdgeKind;
  /** Targetless: the state is neither exited nor re-entered. */
  internal: boolean;
  reenter: boolean;
  /** A guardless candidate after guarded ones for the same trigger: taken when none holds. */
  fallback: boolean;
}

export interface ChartModel {
  machineId: string;
  /** Document order (parents before children). */
  nodes: ChartNode[];
  /** Document order: by source node, then the machine's own candidate order. */
  edges: ChartEdge[];
}

type GuardLike = string | { type?: unknown } | ((...args: never[]) => unknown) | undefined | null;

/** A guard's readable name; compositions show the names they are made of. */
export function guardName(guard: GuardLike): string | null {
  if (guard === undefined || guard === null) return null;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const composed = guard as { name: string; guards?: GuardLike[]; stateValue?: unknown };
    if (Array.isArray(composed.guards)) return `${composed.name}(${composed.guards.map((g) => guardName(g) ?? 'inline').join(', ')})`;
    if (composed.stateValue !== undefined) return `stateIn(${typeof composed.stateValue === 'string' ? composed.stateValue : JSON.stringify(composed.stateValue)})`;
    return composed.name && composed.name !== 'guard' ? composed.name : 'inline';
  }
  return typeof guard.type === 'string' ? guard.type : 'inline';
}

export function edgeKind(event: string | null): ChartEdgeKind {
  if (event === null) return 'always';
  if (event.startsWith('xstate.done.actor.')) return 'done';
  if (event.startsWith('xstate.error.actor.')) return 'error';
  if (event.startsWith('xstate.after.')) return 'after';
  if (event.startsWith('xstate.done.state.')) return 'done-state';
  return 'event';
}

interface TransitionLike {
  target?: readonly AnyStateNode[] | undefined;
  guard?: unknown;
  reenter?: boolean;
}

function toEdges(source: string, event: string | null, candidates: readonly TransitionLike[]): ChartEdge[] {
  let guardedBefore = false;
  return candidates.map((t, n) => {
    const guard = guardName(t.guard as GuardLike);
    const targets = (t.target ?? []).map((node) => node.id);
    const edge: ChartEdge = {
      id: `${source}:${event ?? 'always'}:${n}`,
      source,
      targets,
      event,
      guard,
      kind: edgeKind(event),
      internal: targets.length === 0,
      reenter: t.reenter === true,
      fallback: guard === null && guardedBefore,
    };
    if (guard !== null) guardedBefore = true;
    return edge;
  });
}

function srcName(src: unknown): string {
  return typeof src === 'string' ? src : 'inline';
}

export function chartModel(machine: AnyStateMachine = campaignMachine): ChartModel {
  const nodes: ChartNode[] = [];
  const edges: ChartEdge[] = [];
  const visit = (node: AnyStateNode): void => {
    const initial = node.type === 'compound' ? (node.initial?.target?.[0]?.id ?? null) : null;
    const entry: ChartNode = {
      id: node.id,
      key: node.key,
      parent: node.parent?.id ?? null,
      type: node.type as ChartNodeType,
      initial,
      invokes: node.invoke.map((i) => ({ id: i.id, src: srcName(i.src) })),
      region: node.parent?.type === 'parallel',
    };
    if (node.type === 'history') entry.history = node.history === 'deep' ? 'deep' : 'shallow';
    if (node.description) entry.description = node.description;
    nodes.push(entry);
    for (const [event, candidates] of node.transitions) edges.push(...toEdges(node.id, event, candidates));
    // `always` is kept apart from `transitions` by XState: without this walk those arrows vanish.
    if (node.always) edges.push(...toEdges(node.id, null, node.always));
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  return { machineId: machine.id, nodes, edges };
}

/** The model as stable, indented JSON (the `--format json` output). */
export function chartJson(model: ChartModel): string {
  return `${JSON.stringify(model, null, 2)}\n`;
}
