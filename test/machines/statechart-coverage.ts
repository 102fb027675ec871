/**
 * Declared transitions, read from the machine definition itself (every state node's
 * `transitions`, one entry per guarded branch), and a way to name the branch a step took.
 * Together they give "X of Y transitions exercised" without trusting the traversal to say so.
 */
import { type AnyMachineSnapshot, type AnyStateMachine, type AnyStateNode, type EventObject } from 'xstate';

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
  for (const node of allStateNodes(machine.root)) {
    for (const [event, definitions] of node.transitions) {
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
    }
  }
  return { list, byDefinition };
}

/**
 * The declared transitions a step actually takes (one per region per microstep), guards
 * evaluated, including the transitions of the events the chart raises to itself during the
 * step (REMOTE_OBSERVED, LEASE_READBACK, LEASE_LAPSED). Only effect answers raise, so only
 * `xstate.done.actor.*` steps and the reader's READ_DONE are replayed microstep by microstep
 * (the rest cost one lookup).
 */
export function takenTransitions(
  machine: AnyStateMachine,
  byDefinition: Map<TransitionDefinition, DeclaredTransition>,
  snapshot: AnyMachineSnapshot,
  event: EventObject,
  microsteps: (s: AnyMachineSnapshot, e: EventObject) => { snapshots: AnyMachineSnapshot[]; raised: EventObject[] },
): DeclaredTransition[] {
  const declared = (s: AnyMachineSnapshot, e: EventObject) =>
    machine.getTransitionData(s as never, e as never).map((definition: TransitionDefinition) => {
      const found = byDefinition.get(definition);
      if (!found) throw new Error(`taken transition not in the definition: ${definition.eventType}`);
      return found;
    });
  const taken = declared(snapshot, event);
  if (!event.type.startsWith('xstate.done.actor.') && event.type !== 'READ_DONE') return taken;
  const { snapshots, raised } = microsteps(snapshot, event);
  if (snapshots.length !== raised.length + 1) throw new Error(`${event.type}: ${snapshots.length} microsteps for ${raised.length} raised events`);
  raised.forEach((e, i) => taken.push(...declared(snapshots[i]!, e)));
  return taken;
}

/** Every atomic state node id under `node` (history pseudo-states excluded). */
export function atomicDescendants(node: AnyStateNode): string[] {
  return allStateNodes(node)
    .filter((n) => n.type === 'atomic' || n.type === 'final')
    .map((n) => n.id);
}
