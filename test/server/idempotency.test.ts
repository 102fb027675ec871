/**
 * Idempotency-Key over real loopback HTTP, on Stripe's contract: the same key and body get the
 * first answer (status and body) with no second relay, also from a new supervisor on the same
 * state root; the same key with another body is 422; a concurrent request with the key is 409;
 * a malformed key is 400; a refusal that changed nothing is not kept.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpServer, listen, API_PREFIX } from '../../server/http-server.js';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { isTerminal } from '../../simulator/world/scenarios.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { createScope, envFor, readDocument, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

interface Answer {
  status: number;
  body: Record<string, any>;
  replayed: boolean;
}

interface Node {
  supervisor: Supervisor;
  post(route: 'campaigns' | 'campaign_action', body: unknown, key?: string): Promise<Answer>;
  stop(): Promise<void>;
}

let sim: RunningSimulator;
let stateRoot: string;
const apiKey = canary('api-key');

/** A supervisor and its HTTP server on the shared state root (a restart is a new Node). */
async function startNode(): Promise<Node> {
  const supervisor = await createSupervisor({ config: loadConfig(envFor({ stateRoot, url: sim.url, apiKey })), logger: captureLogs().logger });
  await supervisor.start({ heartbeat: false, initialSweep: false });
  const app = createHttpServer({ supervisor, apiKey, logger: captureLogs().logger });
  const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await app.close();
    await supervisor.stop();
  };
  scope.defer(null, stop);
  return {
    supervisor,
    stop,
    async post(route, body, key) {
      const res = await fetch(`${base}${API_PREFIX}/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...(key === undefined ? {} : { 'idempotency-key': key }) },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any>, replayed: res.headers.get('idempotent-replayed') === 'true' };
    },
  };
}

beforeEach(async () => {
  sim = scope.defer(await startSimulator({ port: 0 }), (s) => s.close());
  stateRoot = await tempStateRoot(scope);
});

/** A campaign whose last attempt has finished, claimed: a submit may start the next one. */
async function readyToSubmit(node: Node, id: string): Promise<{ epoch: number; taskId: string }> {
  const [taskId] = sim.createTasks(1, 'failed');
  for (let i = 0; i < 50 && !isTerminal(sim.task(taskId!)!.state); i++) sim.advance(taskId!);
  expect((await node.post('campaigns', { action: 'create', campaign_id: id, objective: 'o', remote_task_id: taskId, max_attempts: 5 })).status).toBe(200);
  expect((await node.post('campaign_action', { campaign_id: id, action: 'observe' })).status).toBe(200);
  const claim = await node.post('campaign_action', { campaign_id: id, action: 'claim' });
  expect(claim.status).toBe(200);
  return { epoch: claim.body.lease.epoch as number, taskId: taskId! };
}

const sends = () => sim.stats().requests['SendMessage'] ?? 0;
const strip = (a: Answer) => ({ status: a.status, body: a.body });
/** An answer but its campaign view: what an Idempotency-Key record keeps. */
const outcomeOf = (a: Answer) => {
  const { campaign: _view, ...outcome } = a.body;
  return { status: a.status, outcome };
};
/** The campaign's view as the node shows it now. */
async function viewNow(node: Node, id: string): Promise<unknown> {
  const got = await node.supervisor.campaigns({ action: 'get', campaign_id: id });
  return got.ok ? (got.value as { campaign: unknown }).campaign : got;
}

describe('Idempotency-Key', () => {
  it('20 parallel submits with one key make one relay; every later retry gets the first answer', async () => {
    const node = await startNode();
    const { epoch } = await readyToSubmit(node, 'c1');
    const body = { campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 2' };
    const key = 'retry-safe-key-1';

    const burst = await Promise.all(Array.from({ length: 20 }, () => node.post('campaign_action', body, key)));
    expect(sends()).toBe(1);
    const first = burst.find((a) => a.status === 200)!;
    expect(first.body).toMatchObject({ ok: true, outcome: 'applied', request_id: expect.any(String), task_id: expect.any(String) });
    expect(burst.filter((a) => a !== first).map((a) => [a.status, a.body.error?.code])).toEqual(Array(19).fill([409, 'mutation_in_progress']));
    expect(first.replayed).toBe(false);

    const retries = await Promise.all(Array.from({ length: 20 }, () => node.post('campaign_action', body, key)));
    for (const retry of retries) {
      expect(strip(retry)).toEqual(strip(first));
      expect(retry.replayed).toBe(true);
    }
    expect(sends()).toBe(1);
    expect(sim.stats().mutationsApplied.submit).toBe(1);
  });

  it('keeps a mutation\'s answer in the same write as its outcome, so no crash can fall between them', async () => {
    const node = await startNode();
    const { epoch } = await readyToSubmit(node, 'c1');
    const writes = node.supervisor.store!.writes();
    const a = await node.post('campaign_action', { campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 2' }, 'key-atomic');
    expect(a.status).toBe(200);
    // The journal entry, then the outcome with the kept answer: two writes, not three.
    expect(node.supervisor.store!.writes() - writes).toBe(2);
    const doc = await readDocument(stateRoot, 'c1');
    expect(doc.idempotency).toHaveLength(1);
    expect(doc.intents.at(-1)!.outcome?.status).toBe('applied');
  });

  it('the same key with another body is 422 and sends nothing', async () => {
    const node = await startNode();
    const { epoch } = await readyToSubmit(node, 'c1');
    const key = 'key-A';
    expect((await node.post('campaign_action', { campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 2' }, key)).status).toBe(200);
    for (const other of [
      { campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 2, other text' },
      { campaign_id: 'c1', action: 'intervene', epoch, instruction: 'x' },
    ]) {
      const reused = await node.post('campaign_action', other, key);
      expect([reused.status, reused.body.error?.code]).toEqual([422, 'idempotency_key_reused']);
    }
    expect(sends()).toBe(1);
    expect(sim.stats().mutationsApplied.intervene).toBe(0);
  });

  it('a new supervisor on the same state root replays the first answer without relaying', async () => {
    const first = await startNode();
    const { epoch } = await readyToSubmit(first, 'c1');
    const submit = { campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 2' };
    const create = { action: 'create', campaign_id: 'c2', objective: 'created once', max_attempts: 2 };
    const answered = await first.post('campaign_action', submit, 'submit-key');
    const created = await first.post('campaigns', create, 'create-key');
    expect([answered.status, created.status]).toEqual([200, 200]);
    await first.stop();

    const second = await startNode();
    const replayed = await second.post('campaign_action', submit, 'submit-key');
    // The outcome as kept, byte for byte; the campaign as the new supervisor shows it at the moment
    // of the answer (it has not read the remote yet: no `last_read_at`), never a view kept from then.
    expect(outcomeOf(replayed)).toEqual(outcomeOf(answered));
    expect(replayed.replayed).toBe(true);
    expect(replayed.body.campaign).toEqual(await viewNow(second, 'c1'));
    expect(replayed.body.campaign.remote.last_read_at).toBeNull();
    expect(answered.body.campaign.remote.last_read_at).not.toBeNull();
    const recreated = await second.post('campaigns', create, 'create-key');
    expect([recreated.status, recreated.replayed]).toEqual([200, true]);
    expect(outcomeOf(recreated)).toEqual(outcomeOf(created));
    expect(recreated.body.campaign).toEqual(await viewNow(second, 'c2'));
    // Without the key the same create is simply a conflict: the key is what made it a replay.
    expect((await second.post('campaigns', create)).body.error?.code).toBe('campaign_exists');
    expect(sends()).toBe(1);
    // Kept as digests in the document, never the key itself.
    const doc = await readDocument(stateRoot, 'c1');
    expect(doc.idempotency).toHaveLength(1);
    expect(JSON.stringify(doc)).not.toContain('submit-key');
  });

  it('refuses a malformed key before anything runs', async () => {
    const node = await startNode();
    const { epoch } = await readyToSubmit(node, 'c1');
    const body = { campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 2' };
    for (const key of ['x'.repeat(256), 'tab\tinside']) {
      const a = await node.post('campaign_action', body, key);
      expect([a.status, a.body.error?.code], JSON.stringify(key)).toEqual([400, 'invalid_request']);
    }
    // Keys an HTTP client trims or will not send: the library refuses them the same way.
    for (const key of ['', ' padded', 'naïve', 'line\nbreak']) {
      expect(await node.supervisor.campaignAction(body, { idempotencyKey: key })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    }
    expect((await node.post('campaign_action', body, 'x'.repeat(255))).status).toBe(200);
    expect(sends()).toBe(1);
  });

  it('keeps no answer for a refusal that changed nothing, so the same key may be retried later', async () => {
    const node = await startNode();
    const { epoch } = await readyToSubmit(node, 'c1');
    const body = { campaign_id: 'c1', action: 'submit', epoch: epoch + 1, text: 'attempt 2' };
    const refused = await node.post('campaign_action', body, 'key-stale');
    expect([refused.status, refused.body.error?.code]).toEqual([409, 'lease_stale_epoch']);
    expect((await readDocument(stateRoot, 'c1')).idempotency).toEqual([]);
    const again = await node.post('campaign_action', body, 'key-stale');
    expect([again.status, again.replayed]).toEqual([409, false]);
  });

  it('keeps at most the last 64 keys per campaign', async () => {
    const node = await startNode();
    const [taskId] = sim.createTasks(1, 'steady');
    expect((await node.post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'o', remote_task_id: taskId }, 'k-create')).status).toBe(200);
    for (let i = 0; i < 70; i++) {
      const action = i % 2 === 0 ? 'pause' : 'resume';
      expect((await node.post('campaign_action', { campaign_id: 'c1', action }, `k-${i}`)).status, `${action} ${i}`).toBe(200);
    }
    expect((await readDocument(stateRoot, 'c1')).idempotency).toHaveLength(64);
    // The newest is replayed; the oldest is forgotten, so it runs anew.
    expect((await node.post('campaign_action', { campaign_id: 'c1', action: 'resume' }, 'k-69')).replayed).toBe(true);
    expect((await node.post('campaign_action', { campaign_id: 'c1', action: 'pause' }, 'k-0')).replayed).toBe(false);
  });
});
