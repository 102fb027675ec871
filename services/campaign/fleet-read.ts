/**
 * The fleet sweep's read: before a beat hands out its TICKs, the whole fleet is read with A2A
 * 1.0 `ListTasks` (pages of 100, then ONE catch-up request filtered from the newest status
 * timestamp seen), and each campaign's read then takes its task's compact view from here as
 * its answer instead of sending GetTask. Nothing is decided here: the read's answer goes to the
 * same fingerprint and chart as a GetTask answer (services/campaign/effects-read.ts), so an
 * unchanged task is still an unchanged read. A task with no answer here is read with GetTask
 * in the same beat, as before: not listed, listed short (`totalSize`), a page that ended early,
 * a cursor the remote lost between pages (the SDK's in-memory store answers an empty page when
 * the cursor's task was updated), or refused below.
 *
 * A list is remote text like a GetTask answer: each task passes the same boundary
 * (adapters/a2a/list-tasks.ts), and the list as a whole is checked against what we asked and
 * what we hold. Refused, never adopted, and counted (by reason):
 * - `foreign`: a listed task that no campaign here is bound to (another caller's, or an
 *   earlier attempt's): ignored;
 * - `duplicate` / `conflicting`: an id listed twice (the same or a different state): GetTask;
 * - `context_mismatch`: a task in another context than its campaign is bound to: GetTask;
 * - `oversized_page`, `malformed`: a page larger than asked (all its tasks), or a task that
 *   fails the boundary: GetTask;
 * - `cursor_loop`: a page token seen before (or more pages than the fleet can fill): the
 *   listing stops, the rest is read with GetTask.
 *
 * Whether the remote lists at all is probed once (the first page is the probe): a clear
 * refusal (method not found, unsupported, any JSON-RPC error or 4xx, or a pre-1.0 dialect)
 * means per-task reads for the life of this client, logged once. A transport failure decides
 * nothing: that beat reads per task and the next one probes again.
 * @module
 */
import type { A2AClient, TaskSnapshot } from '../../adapters/a2a/index.js';
import { LIST_PAGE_MAX } from '../../adapters/a2a/index.js';
import type { Logger } from '../../adapters/logger.js';

export const FLEET_REFUSALS = ['foreign', 'duplicate', 'conflicting', 'context_mismatch', 'oversized_page', 'malformed', 'cursor_loop'] as const;
export type FleetRefusal = (typeof FLEET_REFUSALS)[number];

/** A due campaign's bound task: what its read would ask GetTask for. */
export interface FleetTarget {
  taskId: string;
  contextId: string | null;
}

/** A listed answer, handed to one read as if GetTask had answered it at `answeredAt`. */
export interface ListedAnswer {
  snapshot: TaskSnapshot;
  requestedAt: string;
  answeredAt: Date;
}

/** What the read path asks: the listed answer for this task, taken once. */
export interface FleetAnswers {
  take(taskId: string, contextId: string | null): ListedAnswer | undefined;
}

export interface FleetSweepReport {
  mode: 'listed' | 'per-task';
  /** ListTasks requests this beat (pages + catch-up). */
  requests: number;
  /** Campaigns answered from the listing; the rest read with GetTask. */
  answered: number;
  /** The remote's `totalSize` of the full listing, when it gave one. */
  totalSize: number | null;
}

export interface FleetReadDeps {
  remote: () => A2AClient | null;
  now: () => Date;
  logger: Logger;
  /** Counts list entries refused (the metric); called once per reason and beat. */
  onRefused?: (reason: FleetRefusal, count: number) => void;
  /**
   * How long one beat may list before it gives up and reads the rest with GetTask (default 15 s,
   * real time): the TICKs, and the lease renewals they carry, wait for the listing.
   */
  budgetMs?: number;
}

const LIST_BUDGET_MS = 15_000;
/** JSON-RPC codes that say "no such method here": -32601 method not found, -32004 unsupported operation (A2A). */
const METHOD_REFUSED_RPC = new Set([-32601, -32004]);
/** HTTP statuses that say the same of the endpoint (a 5xx, 408 or 429 says nothing about the method). */
const METHOD_REFUSED_HTTP = new Set([400, 404, 405, 501]);

/** One beat's listing, page by page. */
class Listing {
  readonly seen = new Map<string, ListedAnswer>();
  readonly refused = new Set<string>();
  readonly counts = new Map<FleetRefusal, number>();
  newest = Number.NEGATIVE_INFINITY;
  requests = 0;

  constructor(private readonly bound: ReadonlyMap<string, string | null>) {}

  count(reason: FleetRefusal, n = 1): void {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + n);
  }

  /** Takes one page's tasks into `into` (the pages' map, or the catch-up's). */
  take(tasks: readonly TaskSnapshot[], into: Map<string, ListedAnswer>, requestedAt: string, answeredAt: Date): void {
    for (const snapshot of tasks) {
      const id = snapshot.id;
      if (!this.bound.has(id)) {
        this.count('foreign');
        continue;
      }
      const time = snapshot.timestamp === null ? Number.NaN : Date.parse(snapshot.timestamp);
      if (time > this.newest) this.newest = time;
      const context = this.bound.get(id);
      if (context && snapshot.contextId !== context) {
        this.refuse(id, 'context_mismatch', into);
        continue;
      }
      if (this.refused.has(id)) continue;
      const before = into.get(id);
      if (before) {
        this.refuse(id, before.snapshot.state === snapshot.state ? 'duplicate' : 'conflicting', into);
        continue;
      }
      into.set(id, { snapshot, requestedAt, answeredAt });
    }
  }

  refuse(id: string, reason: FleetRefusal, into: Map<string, ListedAnswer>): void {
    this.count(reason);
    this.refused.add(id);
    into.delete(id);
    this.seen.delete(id);
  }
}

export class FleetRead implements FleetAnswers {
  /** undefined: not probed yet on this client; false: per-task reads for good. */
  private supported: boolean | undefined;
  private answers = new Map<string, ListedAnswer>();
  /**
   * Beats may overlap (the heartbeat never waits for the last sweep): each listing is numbered,
   * only the newest one installs its answers, and a sweep's end clears only its own.
   */
  private generation = 0;
  private installed = 0;
  /** False: every beat reads per task (the benchmark's comparison on the same fleet). */
  enabled = true;

  constructor(private readonly deps: FleetReadDeps) {}

  get listing(): boolean | undefined {
    return this.supported;
  }

  take(taskId: string, contextId: string | null): ListedAnswer | undefined {
    const found = this.answers.get(taskId);
    if (!found) return undefined;
    this.answers.delete(taskId);
    // Checked again at the read: the binding may have changed since the beat listed it.
    return contextId && found.snapshot.contextId !== contextId ? undefined : found;
  }

  /** Drops what a beat listed and no read took (`generation`: only if that beat's are still installed). */
  clear(generation?: number): void {
    if (generation !== undefined && generation !== this.installed) return;
    this.answers = new Map();
  }

  /** The number of the latest listing (pass it to `clear` when its sweep ends). */
  get current(): number {
    return this.generation;
  }

  /** Lists the fleet for this beat; afterwards each listed campaign's beat read takes its answer. */
  async prepare(targets: Iterable<FleetTarget>): Promise<FleetSweepReport> {
    const generation = ++this.generation;
    // What an earlier beat listed and no read took is older than what this one will list.
    this.clear();
    const remote = this.deps.remote();
    const perTask: FleetSweepReport = { mode: 'per-task', requests: 0, answered: 0, totalSize: null };
    if (!this.enabled || this.supported === false || !remote?.listTasks) return perTask;
    const bound = new Map<string, string | null>();
    for (const t of targets) bound.set(t.taskId, t.contextId);
    if (bound.size === 0) return perTask;

    const list = new Listing(bound);
    const full = await this.pages(remote, list, bound.size, undefined, list.seen);
    if (full === 'refused') return { ...perTask, requests: list.requests };
    // Tasks updated while we paged moved ahead of the cursor: one request from the newest
    // timestamp seen, on the remote's own clock, picks them up. One millisecond earlier, because
    // stores disagree on the bound (the spec includes it; the SDK's stores compare strictly).
    if (Number.isFinite(list.newest)) {
      const caught = new Map<string, ListedAnswer>();
      const after = new Date(list.newest - 1).toISOString();
      await this.pages(remote, list, bound.size, after, caught);
      for (const [id, answer] of caught) if (!list.refused.has(id)) list.seen.set(id, answer);
    }
    for (const [reason, n] of list.counts) this.deps.onRefused?.(reason, n);
    // A newer beat began listing meanwhile: its answers (fresher) win; ours are dropped.
    if (generation !== this.generation) return { ...perTask, requests: list.requests };
    this.answers = list.seen;
    this.installed = generation;
    return { mode: 'listed', requests: list.requests, answered: list.seen.size, totalSize: full };
  }

  /**
   * Pages through one listing into `into`; returns its totalSize (null when not given), or
   * 'refused' when the very first page of the client's life was a refusal (the probe).
   */
  private async pages(
    remote: A2AClient,
    list: Listing,
    fleet: number,
    after: string | undefined,
    into: Map<string, ListedAnswer>,
  ): Promise<number | null | 'refused'> {
    const tokens = new Set<string>();
    let totalSize: number | null = null;
    // Never more pages than our fleet can fill, plus one, whatever `totalSize` says (the remote's
    // number; it also lists tasks we no longer follow): what is not listed by then is read with
    // GetTask. And never past the beat's budget.
    const limit = Math.ceil(fleet / LIST_PAGE_MAX) + 1;
    const deadline = performance.now() + (this.deps.budgetMs ?? LIST_BUDGET_MS);
    const ask = (pageToken: string | undefined) => {
      const requestedAt = this.deps.now().toISOString();
      list.requests++;
      const answer = remote.listTasks!({ pageSize: LIST_PAGE_MAX, ...(pageToken ? { pageToken } : {}), ...(after ? { statusTimestampAfter: after } : {}) });
      const asked = answer.then((a) => ({ answer: a, requestedAt, answeredAt: this.deps.now() }));
      // A page asked ahead and never awaited (this page's tasks threw) must not be an unhandled rejection.
      asked.catch(() => undefined);
      return asked;
    };
    let pending = ask(undefined);
    for (let page = 0; ; page++) {
      const { answer, requestedAt, answeredAt } = await pending;
      if (!answer.ok) {
        if (this.supported === undefined && page === 0 && after === undefined) return this.probeFailed(answer.error, list);
        if (answer.error.code === 'remote_payload_invalid') list.count('oversized_page');
        else if (answer.error.code === 'remote_malformed') list.count('malformed');
        return totalSize;
      }
      if (this.supported === undefined) {
        this.supported = true;
        this.deps.logger.info('the remote answers ListTasks: unchanged beats read the fleet in pages');
      }
      const value = answer.value;
      const { nextPageToken } = value;
      if (page === 0) totalSize = value.totalSize;
      // Whether there is a next page is known from the envelope alone (its size and cursor, both
      // checked): it is asked for now, and this page's tasks pass the boundary while the remote
      // answers. The same requests in the same order as one page at a time.
      const size = value.size ?? value.tasks.length + value.refused;
      let more = nextPageToken !== '' && size > 0;
      // A token seen before is a loop (hostile, counted); the page limit is only where we stop.
      if (more && tokens.has(nextPageToken)) {
        list.count('cursor_loop');
        more = false;
      }
      if (more && (page + 1 >= limit || performance.now() > deadline)) more = false;
      if (more) {
        tokens.add(nextPageToken);
        pending = ask(nextPageToken);
      }
      const { tasks, refused } = value;
      if (refused > 0) list.count('malformed', refused);
      list.take(tasks, into, requestedAt, answeredAt);
      if (!more) return totalSize;
    }
  }

  private probeFailed(error: { code: string; outcome: string; httpStatus?: number; rpcCode?: number }, list: Listing): 'refused' {
    // A refusal of the method itself: not found or unsupported (JSON-RPC), an endpoint that
    // refuses the request outright, or a dialect without ListTasks. An internal error, a 5xx,
    // 408 or 429, or a failed agent-card fetch before the call, says nothing about the method.
    const clear =
      error.code === 'unsupported_capability' ||
      (error.code === 'remote_rpc_error' && error.rpcCode !== undefined && METHOD_REFUSED_RPC.has(error.rpcCode)) ||
      (error.code === 'remote_http_status' && error.httpStatus !== undefined && METHOD_REFUSED_HTTP.has(error.httpStatus));
    // Only a clear refusal decides: a timeout, a lost connection or a garbled page says nothing
    // about the method (a hostile page is counted, and the next beat probes again).
    if (!clear) {
      if (error.code === 'remote_payload_invalid') list.count('oversized_page');
      else if (error.code === 'remote_malformed') list.count('malformed');
      for (const [reason, n] of list.counts) this.deps.onRefused?.(reason, n);
      return 'refused';
    }
    this.supported = false;
    this.deps.logger.info(
      { code: error.code, rpcCode: error.rpcCode, httpStatus: error.httpStatus },
      'the remote does not list tasks (ListTasks refused): every beat reads each task with GetTask',
    );
    return 'refused';
  }
}
