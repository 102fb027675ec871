/**
 * What the crash qualification must cover, and the order it runs in: every meaningful
 * (flow, kill point) pair once, round-robin, then seeded random pairs. So a run of
 * `MATRIX.length` runs covers the whole matrix whatever the seed, and a longer run repeats it.
 * @module
 */

export const FLOWS = ['claim', 'submit', 'intervene', 'cancel', 'release', 'answer'] as const;
export const POINTS = ['after_intent_write', 'after_send', 'after_response', 'before_outcome_write', 'random'] as const;
export type Flow = (typeof FLOWS)[number];
export type Point = (typeof POINTS)[number];
export type MutationFlow = Exclude<Flow, 'claim'>;

export interface Pair {
  flow: Flow;
  point: Point;
}

/**
 * A claim is not journaled (it is read back instead), so it has no intent to write and no
 * outcome to record: `after_intent_write` and `before_outcome_write` do not exist for it.
 * Its two wire points are held at the remote (a slow claim, then a slow lease readback) and the
 * harness kills the supervisor while it waits. The five journaled mutations die at the
 * supervisor's own fault points (services/faults/fault-points.ts); every flow also gets a random kill.
 */
export const POINTS_OF: Record<Flow, readonly Point[]> = {
  claim: ['after_send', 'after_response', 'random'],
  submit: POINTS,
  intervene: POINTS,
  cancel: POINTS,
  release: POINTS,
  // The operator's answer to the remote's own question: a fenced SendMessage, journaled like intervene.
  answer: POINTS,
};

export const MATRIX: readonly Pair[] = FLOWS.flatMap((flow) => POINTS_OF[flow].map((point) => ({ flow, point })));

export const pairKey = (pair: Pair): string => `${pair.flow}×${pair.point}`;

/** A small deterministic PRNG so a failing run can be replayed with --seed. */
export function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/**
 * Run i < MATRIX.length gets pair i, flows interleaved and random kills first (a kill inside a
 * store write leaves a lock the restart waits out, so the slow runs start early); later runs
 * get seeded random pairs.
 */
export function schedule(runs: number, random: () => number): Pair[] {
  const order: readonly Point[] = ['random', ...POINTS.filter((p) => p !== 'random')];
  const interleaved = order.flatMap((point) => MATRIX.filter((p) => p.point === point));
  return Array.from({ length: runs }, (_, i) => interleaved[i] ?? MATRIX[Math.floor(random() * MATRIX.length)]!);
}

export interface ChaosArgs {
  runs: number;
  workers: number;
  seed: number;
  /** 1: one process on a state root (the original qualification); N > 1: N replicas on PostgreSQL. */
  replicas: number;
  /** The replicas' ownership TTL (ARGUS_SUPERVISOR_OWNERSHIP_TTL_SECONDS); unused with one. */
  ttl: number;
  /** 0: no limit. Else no run starts after this many seconds; the summary counts the runs done. */
  maxSeconds: number;
}

const KEYS: Record<string, keyof ChaosArgs> = {
  '--runs': 'runs',
  '--workers': 'workers',
  '--seed': 'seed',
  '--replicas': 'replicas',
  '--ttl': 'ttl',
  '--max-seconds': 'maxSeconds',
};

export function parseChaosArgs(argv: readonly string[], defaultSeed: number): ChaosArgs | null {
  const args: ChaosArgs = { runs: 30, workers: 2, seed: defaultSeed, replicas: 1, ttl: 3, maxSeconds: 0 };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    const value = Number(argv[i + 1]);
    const name = key === undefined ? undefined : KEYS[key];
    if (name && Number.isInteger(value) && value >= 0) {
      args[name] = value;
      i++;
    } else return null;
  }
  if (args.replicas < 1 || args.replicas > 9 || args.ttl < 1 || args.ttl > 60) return null;
  args.workers = Math.max(1, Math.min(args.workers, args.runs || 1));
  return args;
}
