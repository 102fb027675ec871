/**
 * Guard-outcome coverage: every named guard in the machine's `setup({ guards })` must be seen
 * both true and false while the model-based traversal evaluates transitions from reached
 * states. The declared outcomes (2 × named guards) are read from the machine itself, so a
 * guard added later counts automatically, and an outcome nobody can reach has to be listed
 * with a reason (and the reason proven by an invariant test).
 */
import type { AnyStateMachine } from 'xstate';

export type Outcome = 'true' | 'false';
export type GuardOutcomeId = `${string}:${Outcome}`;

/** A side no event sequence reaches, why, and the name of the test that proves it. */
export interface UnreachableOutcome {
  guard: string;
  outcome: Outcome;
  reason: string;
  provenBy: string;
}

export interface GuardRecorder {
  /** Records only while `during` runs, so later assertions that call `can()` do not count. */
  during<T>(work: () => T): T;
  /** The outcomes `work` evaluated, on their own (recorded in `seen` too only inside `during`). */
  capture<T>(work: () => T): [T, Set<GuardOutcomeId>];
  seen(): Set<GuardOutcomeId>;
}

type BuiltinGuard = ((...args: unknown[]) => boolean) & { check(snapshot: unknown, args: unknown, self: unknown): boolean };

/** The names of every guard the machine's setup() declares. */
export const namedGuards = (machine: AnyStateMachine): string[] => Object.keys(machine.implementations.guards).sort();

/** Every outcome the machine declares: `<guard>:true` and `<guard>:false` for each named guard. */
export const declaredOutcomes = (machine: AnyStateMachine): GuardOutcomeId[] =>
  namedGuards(machine).flatMap((name) => [`${name}:true`, `${name}:false`] as GuardOutcomeId[]);

/**
 * The same machine with each named guard wrapped to record its result. Built-in higher-order
 * guards (`not`, `stateIn`, …) carry a `check` that XState calls instead; it is wrapped too.
 */
export function instrumentGuards<M extends AnyStateMachine>(machine: M): { machine: M; recorder: GuardRecorder } {
  const seen = new Set<GuardOutcomeId>();
  let recording = false;
  let captured: Set<GuardOutcomeId> | null = null;
  const note = (name: string, result: boolean): boolean => {
    const id: GuardOutcomeId = `${name}:${result ? 'true' : 'false'}`;
    if (recording) seen.add(id);
    captured?.add(id);
    return result;
  };
  const wrapped: Record<string, unknown> = {};
  for (const [name, impl] of Object.entries(machine.implementations.guards as Record<string, unknown>)) {
    if (typeof impl !== 'function') throw new Error(`guard ${name} is not a function; the coverage cannot wrap it`);
    if ('check' in impl) {
      const builtin = impl as BuiltinGuard;
      wrapped[name] = Object.assign((..._: unknown[]) => false, builtin, {
        check: (snapshot: unknown, args: unknown) => note(name, builtin.check(snapshot, args, builtin)),
      });
    } else {
      const plain = impl as (...args: unknown[]) => boolean;
      wrapped[name] = (...args: unknown[]) => note(name, Boolean(plain(...args)));
    }
  }
  return {
    machine: machine.provide({ guards: wrapped as never }) as M,
    recorder: {
      during(work) {
        recording = true;
        try {
          return work();
        } finally {
          recording = false;
        }
      },
      capture(work) {
        const outer = captured;
        const mine = (captured = new Set());
        try {
          return [work(), mine];
        } finally {
          captured = outer;
        }
      },
      seen: () => new Set(seen),
    },
  };
}

export interface GuardCoverage {
  declared: number;
  covered: number;
  missing: GuardOutcomeId[];
  unreachable: Array<UnreachableOutcome & { id: GuardOutcomeId }>;
  /** Listed as unreachable but reached after all: the listing is wrong. */
  reachedButListed: GuardOutcomeId[];
  /** Listed for a guard the machine no longer declares. */
  unknownListed: GuardOutcomeId[];
  line: string;
}

export function guardCoverage(machine: AnyStateMachine, seen: Set<GuardOutcomeId>, unreachable: readonly UnreachableOutcome[]): GuardCoverage {
  const declared = declaredOutcomes(machine);
  const listed = unreachable.map((u) => ({ ...u, id: `${u.guard}:${u.outcome}` as GuardOutcomeId }));
  const listedIds = new Set(listed.map((u) => u.id));
  const covered = declared.filter((id) => seen.has(id));
  const missing = declared.filter((id) => !seen.has(id) && !listedIds.has(id));
  const unreachableNote = listed.length ? ` (${listed.length} listed unreachable, each proven)` : '';
  return {
    declared: declared.length,
    covered: covered.length,
    missing,
    unreachable: listed,
    reachedButListed: listed.filter((u) => seen.has(u.id)).map((u) => u.id),
    unknownListed: listed.filter((u) => !declared.includes(u.id)).map((u) => u.id),
    line: `guards: ${covered.length}/${declared.length} outcomes covered${unreachableNote}`,
  };
}
