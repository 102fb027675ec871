/**
 * Injectable faults, served per request in arrival order. Each spec stays armed for `count`
 * matching requests; a spec without `methods` matches every A2A request (card fetches are
 * named `agentCard`), except `lost-response`, which by default only hits mutations.
 * `rpc-error` answers a JSON-RPC internal error instead of running the request (a definite
 * refusal: nothing applied). Holds (`hold`) are not faults: they only order answers.
 * @module
 */
import { CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';

export const FAULT_KINDS = ['http-5xx', 'malformed-json', 'redirect', 'oversized', 'slow', 'trickle', 'lost-response', 'rpc-error'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
  kind: FaultKind;
  /** Matching requests to hit (default 1). */
  count?: number;
  /** JSON-RPC methods (or `agentCard`) this fault applies to. */
  methods?: string[];
  /** Only requests about this task (the JSON-RPC `params.id`), e.g. one campaign's GetTask. */
  taskId?: string;
  /** http-5xx: status to answer (default 503). */
  status?: number;
  /** slow: delay before any header is sent (default 10,000 ms); trickle: between body bytes (default 1,000 ms). */
  delayMs?: number;
  /** oversized: body size in bytes (default 2 MiB); trickle: padding bytes (default 4 KiB, over an hour at 1 B/s). */
  bytes?: number;
  /** redirect: Location (default this server's /_sim/redirect-sink, which records the hit). */
  location?: string;
}

/** Every method that changes remote state: the default target of `lost-response`. */
export const MUTATION_METHODS: readonly string[] = [
  'SendMessage',
  'message/send',
  'CancelTask',
  'tasks/cancel',
  CONTROL_METHODS.intervene,
  CONTROL_METHODS.leaseClaim,
  CONTROL_METHODS.leaseRenew,
  CONTROL_METHODS.leaseRelease,
];

interface ArmedFault {
  spec: FaultSpec;
  remaining: number;
}

/** A hold on some methods: their requests wait here until it is released. */
interface Hold {
  methods: readonly string[];
  waiting: (() => void)[];
}

export class FaultInjector {
  private armed: ArmedFault[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private holds: Hold[] = [];

  /** Holds requests of `methods` until `release()` (see RunningSimulator.hold). */
  hold(methods: readonly string[]): { release(): number } {
    const hold: Hold = { methods, waiting: [] };
    this.holds.push(hold);
    return { release: () => this.release(hold) };
  }

  /** Lifts one hold and serves what it parked, in arrival order; returns how many. */
  private release(hold: Hold): number {
    this.holds = this.holds.filter((h) => h !== hold);
    const waiting = hold.waiting.splice(0);
    for (const serve of waiting) serve();
    return waiting.length;
  }

  /** Requests parked by holds now. */
  get holding(): number {
    return this.holds.reduce((n, h) => n + h.waiting.length, 0);
  }

  /** Releases every hold (in the order they were made); returns how many requests were parked. */
  releaseAll(): number {
    return [...this.holds].reduce((served, hold) => served + this.release(hold), 0);
  }

  /** Parks `serve` when a hold covers `method` (true), else leaves it to the caller (false). */
  parked(method: string, serve: () => void): boolean {
    const hold = this.holds.find((h) => h.methods.includes(method));
    if (!hold) return false;
    hold.waiting.push(serve);
    return true;
  }

  inject(specs: FaultSpec | FaultSpec[]): void {
    for (const spec of Array.isArray(specs) ? specs : [specs]) {
      if (!(FAULT_KINDS as readonly string[]).includes(spec.kind)) throw new RangeError(`unknown fault kind: ${String(spec.kind)}`);
      const remaining = spec.count ?? 1;
      if (!Number.isInteger(remaining) || remaining < 1) throw new RangeError('fault count must be a positive integer');
      this.armed.push({ spec, remaining });
    }
  }

  clear(): void {
    this.armed = [];
  }

  get active(): number {
    return this.armed.reduce((sum, fault) => sum + fault.remaining, 0);
  }

  /** The first armed fault matching this request, consumed by one. */
  take(method: string, taskId?: string): FaultSpec | undefined {
    if (this.armed.length === 0) return undefined;
    const index = this.armed.findIndex(({ spec }) => matches(spec, method) && (spec.taskId === undefined || spec.taskId === taskId));
    if (index < 0) return undefined;
    const fault = this.armed[index]!;
    if (--fault.remaining === 0) this.armed.splice(index, 1);
    return fault.spec;
  }

  /** Slow answers hold a timer; closing the simulator must not wait for them. */
  delay(ms: number, then: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      then();
    }, ms);
    this.timers.add(timer);
  }

  dispose(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.armed = [];
    this.holds = [];
  }
}

function matches(spec: FaultSpec, method: string): boolean {
  if (spec.methods) return spec.methods.includes(method);
  return spec.kind === 'lost-response' ? MUTATION_METHODS.includes(method) : true;
}
