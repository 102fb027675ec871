/**
 * The fleet sweep: a beat reads 250 campaigns with ⌈250/100⌉ + 1 ListTasks requests when nothing
 * changed, and still finds every change when 10 tasks change between and during its pages:
 * against the simulator listing as the spec says, as @a2a-js/sdk's in-memory store does (its
 * cursor is lost when its task is updated between pages: the page comes back empty), and
 * against a stock SDK server (DefaultRequestHandler + InMemoryTaskStore). Real loopback
 * servers, real supervisor and state root, sweeps driven by hand.
 */
import pLimit from 'p-limit';
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AClient, type A2AClient, type TaskPage } from '../../adapters/a2a/index.js';
import type { Result } from '../../adapters/a2a/errors.js';
import { startStockSdkServer } from '../../bench/stock-sdk-server.js';
import { startSimulator } from '../../simulator/index.js';
import { attach, createScope, startTestSupervisor, tempStateRoot, ticks } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

const N = 250;
const UNCHANGED_REQUESTS = Math.ceil(N / 100) + 1;

interface Remote {
  url: string;
  ids: string[];
  /** A material change: a new artifact and a newer status timestamp. */
  change(taskId: string): Promise<void>;
  requests(): { list: number; get: number };
}

async function simulatorRemote(listing: 'spec' | 'sdk-memory'): Promise<Remote> {
  const sim = scope.defer(await startSimulator({ port: 0, listing, control: false }), (s) => s.close());
  const ids = sim.createTasks(N, 'steady');
  return {
    url: sim.url,
    ids,
    async change(taskId) {
      expect(sim.addCheckpoint(taskId)).toBe(true);
    },
    requests: () => ({ list: sim.stats().requests['ListTasks'] ?? 0, get: sim.stats().requests['GetTask'] ?? 0 }),
  };
}

async function stockRemote(): Promise<Remote> {
  const server = scope.defer(await startStockSdkServer(N), (s) => s.close());
  return {
    url: server.base,
    ids: server.ids,
    change: (taskId) => server.touch(taskId),
    requests: () => ({ list: server.requests.get('ListTasks') ?? 0, get: server.requests.get('GetTask') ?? 0 }),
  };
}

/** The real client, with a hook run after each full-listing page comes back (before the next is asked). */
function instrumented(url: string): { client: A2AClient; afterPage: { hook: ((page: number, seen: string[]) => Promise<void>) | null } } {
  const real = createA2AClient({ baseUrl: url });
  const afterPage: { hook: ((page: number, seen: string[]) => Promise<void>) | null } = { hook: null };
  let page = 0;
  const seen: string[] = [];
  const listTasks = async (req: Parameters<NonNullable<A2AClient['listTasks']>>[0]): Promise<Result<TaskPage>> => {
    const answer = await real.listTasks!(req);
    if (req.statusTimestampAfter !== undefined) return answer;
    if (req.pageToken === undefined) {
      page = 0;
      seen.length = 0;
    }
    page++;
    if (answer.ok) seen.push(...answer.value.tasks.map((t) => t.id));
    if (afterPage.hook) await afterPage.hook(page, [...seen]);
    return answer;
  };
  return { client: { ...real, listTasks }, afterPage };
}

/** `cursorLost`: the remote's cursor dies with an update (the SDK store), so part of the beat falls back to GetTask. */
async function sweepFleet(remote: Remote, cursorLost: boolean): Promise<void> {
  const stateRoot = await tempStateRoot(scope);
  const { client, afterPage } = instrumented(remote.url);
  const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: remote.url, remote: client });
  const limit = pLimit(32);
  await Promise.all(remote.ids.map((taskId, i) => limit(() => attach(supervisor, `fleet-${i}`, taskId))));

  // First beat: every campaign's first observation.
  expect(await supervisor.sweep()).toMatchObject({ ticked: N, errors: 0 });

  expect(supervisor.fleet?.last).toMatchObject({ mode: 'listed', answered: N });

  // An unchanged beat: the pages and one catch-up, no GetTask, every tick unchanged.
  let before = remote.requests();
  const unchanged = await ticks(supervisor, 'unchanged');
  expect(await supervisor.sweep()).toMatchObject({ ticked: N, errors: 0 });
  expect(remote.requests()).toEqual({ list: before.list + UNCHANGED_REQUESTS, get: before.get });
  expect(await ticks(supervisor, 'unchanged')).toBe(unchanged + N);

  // Ten changes: five between beats, five while the beat pages (one of them the task the
  // next page's cursor names: the SDK's in-memory store then answers an empty page).
  const changed = new Set<string>();
  const change = async (id: string | undefined) => {
    if (id === undefined || changed.has(id)) throw new Error('the test picked no fresh task to change');
    changed.add(id);
    await remote.change(id);
  };
  for (const i of [3, 60, 120, 180, 240]) await change(remote.ids[i]);
  afterPage.hook = async (page, seen) => {
    const fresh = (ids: string[]) => ids.filter((id) => !changed.has(id));
    const unseen = fresh(remote.ids.filter((id) => !seen.includes(id)));
    if (page === 1) {
      await change(seen[seen.length - 1]); // the cursor's task
      await change(fresh(seen)[10]); // a task already read on this page
      await change(unseen[5]);
      await change(unseen[unseen.length - 1]);
    } else if (page === 2 || seen.length === 0) {
      await change(unseen[0]);
    }
  };
  const changedTicks = await ticks(supervisor, 'changed');
  const unchangedBefore = await ticks(supervisor, 'unchanged');
  before = remote.requests();
  expect(await supervisor.sweep()).toMatchObject({ ticked: N, errors: 0 });
  afterPage.hook = null;
  const during = remote.requests();
  // A lost cursor ends the listing early (an empty page): the tasks not listed were read with GetTask.
  if (cursorLost) expect(during.get - before.get).toBeGreaterThan(0);
  else expect(during.get).toBe(before.get);
  expect(changed.size).toBe(10);
  expect(await ticks(supervisor, 'changed')).toBe(changedTicks + 10);
  expect(await ticks(supervisor, 'unchanged')).toBe(unchangedBefore + N - 10);
  expect(await ticks(supervisor, 'failed')).toBe(0);

  // Nothing was left for a later beat: the next one sees no change, at the unchanged cost.
  before = remote.requests();
  expect(await supervisor.sweep()).toMatchObject({ ticked: N, errors: 0 });
  expect(await ticks(supervisor, 'changed')).toBe(changedTicks + 10);
  expect(remote.requests()).toEqual({ list: before.list + UNCHANGED_REQUESTS, get: before.get });
}

describe('a fleet sweep over 250 campaigns', () => {
  it('against the simulator listing as the spec says', async () => {
    await sweepFleet(await simulatorRemote('spec'), false);
  });

  it('against the simulator listing as the SDK in-memory store does (cursor lost on update)', async () => {
    await sweepFleet(await simulatorRemote('sdk-memory'), true);
  });

  it('against a stock @a2a-js/sdk server (DefaultRequestHandler + InMemoryTaskStore)', async () => {
    await sweepFleet(await stockRemote(), true);
  });
});
