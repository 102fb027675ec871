/**
 * Declared transitions, read from the machine definition itself (every state node's `on`,
 * invoke answers and `always` arrows, one entry per guarded branch), and a way to name the
 * branches a step took. Together they give "X of Y transitions exercised" without trusting the
 * traversal to say so.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

export interface DeclaredTransition {
  /** `source --event[#branch]--> targets`, stable across runs. */
  id: string;
  source: string;
  event: string;
  branch: number;
  guard: string | null;
  targets: string[];
}

type TransitionDefinition = AnyStateNode['transitions'] extends Map<string, (infer T)[]> ? T : never;

/** Renders a guard as it reads in the chart: `and(readbackFresh, or(a, b))`. */
export function guardLabel(guard: unknown): string | null {
  if (guard === undefined || guard === null) return null;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const fn = guard as { name: string; guards?: unknown[]; stateValue?: unknown };
    if (fn.guards) return `${fn.name}(${fn.guards.map(guardLabel).join(', ')})`;
    if (fn.stateValue !== undefined) return `${fn.name}(${JSON.stringify(fn.stateValue)})`;
    return fn.name || 'inline';
  }
  const named = guard as { type?: string };
  return named.type ?? 'inline';
}

export function allStateNodes(node: AnyStateNode): AnyStateNode[] {
  return [node, ...Object.values(node.states).flatMap((child) => allStateNodes(child as AnyStateNode))];
}

export function declaredTransitions(machine: AnyStateMachine): { list: DeclaredTransition[]; byDefinition: Map<TransitionDefinition, DeclaredTransition> } {
  const list: DeclaredTransition[] = [];
  const byDefinition = new Map<TransitionDefinition, DeclaredTransition>();
  const declare = (node: AnyStateNode, event: string, definitions: readonly TransitionDefinition[]) =>
    definitions.forEach((definition, branch) => {
      const targets = (definition.target ?? []).map((t: AnyStateNode) => t.id);
      const guard = guardLabel(definition.guard);
      const declared: DeclaredTransition = {
        id: `${node.id} --${event}[#${branch}${guard ? ` ${guard}` : ''}]--> ${targets.length ? targets.join(' + ') : '(stay)'}`,
        source: node.id,
        event,
        branch,
        guard,
        targets,
      };
      list.push(declared);
      byDefinition.set(definition, declared);
    });
  for (const node of allStateNodes(machine.root)) {
    for (const [event, definitions] of node.transitions) declare(node, event, definitions);
    // Eventless (`always`) transitions are not in `transitions`: they are declared arrows too.
    if (node.always?.length) declare(node, 'always', node.always as TransitionDefinition[]);
  }
  return { list, byDefinition };
}

/**
 * The declared transitions a step took, from the transitions XState reports for each of its
 * microsteps (`@xstate.microstep` inspection): the event's own, every eventless one, and those
 * of the events the chart raises to itself within the step (REMOTE_OBSERVED, REMOTE_ANSWERED,
 * MUTATE, LEASE_READBACK, LEASE_LAPSED), one per region per microstep.
 */
export function namedTransitions(byDefinition: Map<TransitionDefinition, DeclaredTransition>, definitions: readonly unknown[]): DeclaredTransition[] {
  return definitions.map((definition) => {
    const found = byDefinition.get(definition as TransitionDefinition);
    if (!found) throw new Error(`taken transition not in the definition: ${(definition as { eventType?: string }).eventType}`);
    return found;
  });
}

/** Every atomic state node id under `node` (history pseudo-states excluded). */
export function atomicDescendants(node: AnyStateNode): string[] {
  return allStateNodes(node)
    .filter((n) => n.type === 'atomic' || n.type === 'final')
    .map((n) => n.id);
}
