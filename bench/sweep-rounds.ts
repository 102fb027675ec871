/**
 * The measured rounds of the heartbeat benchmark: our sweep (`supervisor.sweep()`), a raw
 * undici sweep of the same JSON-RPC GetTask, and an `@a2a-js/sdk` client sweep, interleaved in
 * rotating order against the same tasks at the same concurrency. Each method gets one
 * unmeasured sweep on its own path first.
 * @module
 */
import { performance } from 'node:perf_hooks';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';
import { ClientFactory } from '@a2a-js/sdk/client';
import type { Supervisor } from '../services/runtime/supervisor.js';
import { log, unchangedTicks } from './bench-setup.js';

export const METHODS = ['sweep', 'raw', 'sdk'] as const;
export type Method = (typeof METHODS)[number];

export interface Measured {
  wallMs: number;
  cpuMs: number;
}

interface Sweeper {
  /** Builds and warms the method the first time; a no-op afterwards. */
  prepare(): Promise<void>;
  run(): Promise<void>;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function measure(fn: () => Promise<void>): Promise<Measured> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await fn();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

/** A sweeper whose set-up (and one unmeasured warm-up sweep) runs once, on first `prepare`. */
function lazily(build: () => Promise<() => Promise<void>>): Sweeper {
  let run: (() => Promise<void>) | null = null;
  return {
    async prepare() {
      if (run) return;
      run = await build();
      await run();
    },
    run: () => run!(),
  };
}

/** A comparison sweep that must read every task: a failed read would flatter its time. */
function checked(name: string, sweep: () => Promise<number>): () => Promise<void> {
  return async () => {
    const failures = await sweep();
    if (failures) throw new Error(`${failures} reads failed in the ${name} sweep`);
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A short pause before each measured sweep, so the simulator finishes the previous sweep's
 * stragglers. (A forced GC here was tried and doubled every method's measured CPU time on
 * Node 20, so none is forced.)
 */
export const settle = () => sleep(100);

/** One sweep of raw undici POSTs: what any HTTP client must do at least. */
export function rawSweeper(rpcUrl: string, headers: Record<string, string>, ids: readonly string[], concurrency: number) {
  const agent = new Agent({ connections: concurrency, pipelining: 1 });
  let nextId = 1;
  const sweep = async (): Promise<number> => {
    const limit = pLimit(concurrency);
    let failures = 0;
    await Promise.all(
      ids.map((id) =>
        limit(async () => {
          const res = await request(rpcUrl, {
            method: 'POST',
            dispatcher: agent,
            headers,
            body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'GetTask', params: { id, historyLength: 0 } }),
          });
          const reply = JSON.parse(await res.body.text()) as { result?: unknown };
          if (res.statusCode !== 200 || reply.result === undefined) failures++;
        }),
      ),
    );
    return failures;
  };
  return { sweep, close: () => agent.close() };
}

/**
 * One full listing with raw undici: ListTasks pages of 100, one after another (each page's
 * cursor is in the previous answer), each parsed and nothing else. The fleet sweep cannot be
 * faster than this: it is the remote's own cost of listing N tasks plus JSON.parse.
 */
export function rawLister(rpcUrl: string, headers: Record<string, string>) {
  const agent = new Agent({ connections: 1, pipelining: 1 });
  let nextId = 1;
  const sweep = async (): Promise<{ tasks: number; requests: number }> => {
    let pageToken: string | undefined;
    let tasks = 0;
    let requests = 0;
    for (;;) {
      const params = { pageSize: 100, ...(pageToken ? { pageToken } : {}) };
      const res = await request(rpcUrl, { method: 'POST', dispatcher: agent, headers, body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'ListTasks', params }) });
      requests++;
      const reply = JSON.parse(await res.body.text()) as { result?: { tasks?: unknown[]; nextPageToken?: string } };
      if (res.statusCode !== 200 || !Array.isArray(reply.result?.tasks)) throw new Error(`raw ListTasks answered ${res.statusCode}`);
      tasks += reply.result.tasks.length;
      pageToken = reply.result.nextPageToken;
      if (!pageToken || reply.result.tasks.length === 0) return { tasks, requests };
    }
  };
  return { sweep, close: () => agent.close() };
}

/** One sweep through the reference SDK client (global fetch under the hood). */
async function sdkSweeper(url: string, ids: readonly string[], concurrency: number) {
  const client = await new ClientFactory().createFromUrl(`${url}/`);
  return async (): Promise<number> => {
    const limit = pLimit(concurrency);
    let failures = 0;
    await Promise.all(
      ids.map((id) =>
        limit(async () => {
          try {
            await client.getTask({ tenant: '', id, historyLength: 0 });
          } catch {
            failures++;
          }
        }),
      ),
    );
    return failures;
  };
}

export interface RoundsInput {
  supervisor: Supervisor;
  /** The simulator's agent URL (for the SDK) and its JSON-RPC URL (for raw undici). */
  url: string;
  rpcUrl: string;
  /** The headers our own client sends, so the raw sweep does the same work. */
  headers: Record<string, string>;
  taskIds: readonly string[];
  concurrency: number;
  rounds: number;
}

export interface RoundsResult {
  measured: Record<Method, Measured[]>;
  /** Ticks in the last measured sweep of ours, and tick errors over all of them. */
  ticked: number;
  tickErrors: number;
  /** Unchanged ticks the supervisor counted over the measured sweeps of ours. */
  unchangedTicks: number;
  /** Our unmeasured first sweep of unchanged ticks. */
  firstUnchangedMs: number;
  /** Memory right after our first measured sweep, before the comparison clients do much. */
  rss: number;
  heapUsed: number;
  /** The largest RSS right after any measured sweep of ours. */
  rssMax: number;
}

export async function runRounds(input: RoundsInput): Promise<RoundsResult> {
  const { supervisor, taskIds, concurrency, rounds } = input;
  const closers: (() => Promise<void>)[] = [];
  let ticked = 0;
  let firstUnchangedMs = 0;
  let tickErrors = 0;
  let rss = 0;
  let heapUsed = 0;
  let rssMax = 0;
  const methods: Record<Method, Sweeper> = {
    // Every method gets one unmeasured sweep on its own path (sockets, JIT) just before its
    // first measured one. Ours is a sweep of unchanged ticks, timed apart as
    // `setup.first_unchanged_sweep_ms`; the comparison clients are built then too, so the
    // first measured sweep is ours, with nothing else in the process yet (rss is read then).
    sweep: lazily(async () => {
      let first = true;
      return async () => {
        const started = performance.now();
        const report = await supervisor.sweep();
        if (first) firstUnchangedMs = performance.now() - started;
        first = false;
        ticked = report.ticked;
        tickErrors += report.errors;
      };
    }),
    raw: lazily(async () => {
      const raw = rawSweeper(input.rpcUrl, input.headers, taskIds, concurrency);
      closers.push(raw.close);
      return checked('raw', raw.sweep);
    }),
    sdk: lazily(async () => checked('sdk', await sdkSweeper(input.url, taskIds, concurrency))),
  };
  const measured: Record<Method, Measured[]> = { sweep: [], raw: [], sdk: [] };
  let unchanged0 = 0;
  try {
    for (let r = 0; r < rounds; r++) {
      // Interleaved, and the order rotates each round so no method always follows another.
      const order = METHODS.map((_, i) => METHODS[(i + r) % METHODS.length]!);
      for (const method of order) {
        await methods[method].prepare();
        if (method === 'sweep' && r === 0) unchanged0 = await unchangedTicks(supervisor);
        await settle();
        measured[method].push(await measure(methods[method].run));
        if (method === 'sweep') rssMax = Math.max(rssMax, process.memoryUsage().rss);
        if (method === 'sweep' && r === 0) {
          const mem = process.memoryUsage();
          rss = mem.rss;
          heapUsed = mem.heapUsed;
        }
      }
      log(
        `round ${r + 1}/${rounds}: ` +
          METHODS.map((m) => `${m} ${Math.round(measured[m][r]!.wallMs)} ms (cpu ${Math.round(measured[m][r]!.cpuMs)})`).join(', '),
      );
    }
  } finally {
    for (const close of closers) await close().catch(() => undefined);
  }
  return { measured, ticked, tickErrors, unchangedTicks: (await unchangedTicks(supervisor)) - unchanged0, firstUnchangedMs, rss, heapUsed, rssMax };
}
