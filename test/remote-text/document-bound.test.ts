/**
 * The worst case of docs/remote-text.md, computed by running it: a remote that makes every
 * tick material and every field as large as the caps allow (3-byte UTF-8 characters, a new
 * stage, attempt, question and 32 new artifacts per read, read-failure streaks in between),
 * for far longer than any retention. The document stays under the documented bound, and the
 * keys, fingerprint and outbox stay within their own caps.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { CONTROL_EXTENSION_URI } from '../../adapters/a2a/control-contract.js';
import { normalizeTask } from '../../adapters/a2a/normalize.js';
import { newCampaignDocument, parseCampaignDocument, PUBLISHED_KEY_RETENTION, type CampaignDocument } from '../../persistence/campaign-document.js';
import { appendPublicEvents, OUTBOX_EVENT_BYTES } from '../../persistence/outbox.js';
import { HISTORY_RETENTION } from '../../persistence/state-history.js';
import type { A2AClient } from '../../adapters/a2a/index.js';
import type { CampaignStore, WriteResult } from '../../persistence/campaign-store.js';
import { campaignMachine } from '../../machines/campaign.machine.js';
import { CAMPAIGN_MACHINE_VERSION } from '../../machines/campaign.version.js';
import { initialMachine } from '../../services/api/campaigns-route.js';
import { CampaignHost } from '../../services/campaign/campaign-host.js';
import { createCampaignSystem } from '../../services/campaign/campaign-system.js';
import { DEDUPE_KEY_MAX, dedupeKey } from '../../services/reducer/dedupe-key.js';
import { materialFingerprint } from '../../services/reducer/fingerprint.js';

const DOCUMENT_BOUND_BYTES = 256 * 1024;
const WIDE = '語'; // 3 bytes in UTF-8: the most a sanitized BMP character costs on disk

const STATES = ['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED', 'TASK_STATE_INPUT_REQUIRED'];

function hostileWire(n: number) {
  const wide = (label: string, len: number) => `${label}${n}${WIDE.repeat(len)}`;
  return {
    id: 'task-A',
    contextId: 'ctx-A',
    status: { state: STATES[n % STATES.length], message: { role: 'ROLE_AGENT', parts: [{ text: wide('q', 100_000) }] } },
    artifacts: Array.from({ length: 64 }, (_, i) => ({ artifactId: wide(`a${i}-`, 1000), name: wide('n', 1000) })),
    metadata: { [CONTROL_EXTENSION_URI]: { revision: n, stage: wide('s', 1000), attempt: n, attemptId: wide('t', 1000), lease: null } },
  };
}

/**
 * The first persisted snapshot of a campaign created on `taskId` (no context known yet): the
 * binding is the chart's own (its context), the document's `remote` only a copy of it.
 */
function boundMachine(input: { campaignId: string; controllerId: string; maxAttempts: number; createdAt: string; taskId: string }) {
  const { taskId, ...rest } = input;
  const actor = createActor(campaignMachine, { input: { ...rest, binding: { taskId, contextId: null } } }).start();
  const persisted = { version: CAMPAIGN_MACHINE_VERSION, snapshot: actor.getPersistedSnapshot() };
  actor.stop();
  return persisted;
}

const size = (doc: CampaignDocument) => Buffer.byteLength(`${JSON.stringify(doc)}\n`);

/** The store's contract in memory: every write is validated as a document, as the real store does. */
function memoryStore(first: CampaignDocument) {
  let doc = first;
  let writes = 0;
  const store = {
    async load(id: string) {
      return { id, ok: true as const, doc };
    },
    async create(next: CampaignDocument): Promise<WriteResult> {
      doc = next;
      return { ok: true, doc, written: true };
    },
    async loadAll() {
      return [{ id: doc.campaignId, ok: true as const, doc }];
    },
    async transact(_id: string, fn: (d: CampaignDocument) => CampaignDocument | null): Promise<WriteResult> {
      const next = fn(doc);
      if (!next) return { ok: true, doc, written: false };
      const parsed = parseCampaignDocument(JSON.parse(JSON.stringify(next)));
      if (!parsed.ok) throw new Error(parsed.reason);
      doc = parsed.doc;
      writes++;
      return { ok: true, doc, written: true };
    },
  };
  return { store: store as unknown as CampaignStore, current: () => doc, writes: () => writes };
}

describe('the document bound', () => {
  it('holds whatever a remote sends, for longer than any retention', async () => {
    // The longest campaign id and objective an operator may give: the bound includes them.
    const campaignId = `c${'x'.repeat(127)}`;
    const createdAt = '2030-01-01T00:00:00.000Z';
    const first = newCampaignDocument({
      campaignId,
      objective: WIDE.repeat(4000),
      createdAt,
      remote: { taskId: 'task-A', contextId: null, attached: true },
      machine: boundMachine({ campaignId, controllerId: 'argus-openoperator', maxAttempts: 3, createdAt, taskId: 'task-A' }),
    });
    const mem = memoryStore(first);
    let clock = Date.parse(createdAt);
    let n = 0;
    let failing: string | null = null;
    // The live host's own read path: the real readStatus effect, the reducer, the chart, the save.
    const remote = {
      getTask: async () => {
        if (failing) return { ok: false, error: { code: failing, message: 'injected', outcome: 'not_sent' } };
        const snapshot = normalizeTask(hostileWire(n), []);
        if (!snapshot.ok) throw new Error(snapshot.error.message);
        return snapshot;
      },
    } as unknown as A2AClient;
    // The read path needs no discovered capability: only the cadence is a fact here.
    const environment = () => ({ capabilities: null, argusAvailable: false, cadenceMs: 60_000 });
    const system = createCampaignSystem({ store: mem.store, now: () => new Date(clock), environment, effects: { controllerId: 'argus-openoperator', remote, now: () => new Date(clock) } });
    await system.load();
    const host = system.host(campaignId) as CampaignHost;
    // An operator's read: the failure streaks' backoff does not hold it back.
    const read = () => host.observe({ type: 'OBSERVE', now: new Date(clock).toISOString() });
    let largest = 0;
    for (n = 1; n <= 1500; n++) {
      clock += 1000;
      if (n % 7 === 0) {
        // A streak of three failures of each kind: one CRITICAL each, with long campaign-scoped keys.
        for (const code of ['remote_timeout', 'task_not_found', 'remote_payload_invalid']) {
          failing = code;
          for (let i = 0; i < 3; i++) await read();
        }
        failing = null;
      }
      const before = mem.writes();
      await read();
      expect(mem.writes()).toBe(before + 1);
      largest = Math.max(largest, size(mem.current()));
    }
    await system.stop();
    const doc = mem.current();
    expect(mem.writes()).toBeGreaterThan(1400);
    expect(doc.outbox.nextSeq).toBeGreaterThan(1000);
    expect(doc.outbox.publishedKeys).toHaveLength(PUBLISHED_KEY_RETENTION);
    for (const key of doc.outbox.publishedKeys) expect(key.length).toBeLessThanOrEqual(DEDUPE_KEY_MAX);
    expect(Buffer.byteLength(JSON.stringify(doc.outbox.events))).toBeLessThanOrEqual(OUTBOX_EVENT_BYTES + 2);
    expect(parseCampaignDocument(JSON.parse(JSON.stringify(doc))).ok).toBe(true);
    // The state history fills too (the remote moves the attention on most reads): it is in the bound.
    expect(doc.history).toHaveLength(HISTORY_RETENTION);
    console.log(`document bound: largest document ${largest} bytes, its state history ${Buffer.byteLength(JSON.stringify(doc.history))} bytes`);
    expect(largest).toBeLessThan(DOCUMENT_BOUND_BYTES);
  }, 120_000);
});

describe('dedupe keys', () => {
  it.each([
    ['plain identifiers stay readable', ['stage', 'task-1', '#1', 'train'], 'stage:task-1:#1:train'],
    ['null parts read as -', ['state', 'task-1', '-', 'working', null], 'state:task-1:-:working:-'],
    ['numbers', ['lease', 'ctx-1', 'rival', 8], 'lease:ctx-1:rival:8'],
  ])('%s', (_name, [prefix, ...parts], expected) => {
    expect(dedupeKey(prefix as string, ...(parts as (string | number | null)[]))).toBe(expected);
  });

  it.each([
    ['a part with a space', 'stage [REDACTED] x'],
    ['a part with a separator', 'a:b'],
    ['a part with non-ASCII', 'étape'],
    ['a long part', 'x'.repeat(65)],
    ['a 200 KB part', 'y'.repeat(200 * 1024)],
  ])('%s becomes a digest of bounded length', (_name, part) => {
    const key = dedupeKey('stage', 'task-1', '#1', part);
    expect(key).toMatch(/^stage:~[0-9a-f]{32}$/);
    expect(key).not.toBe(dedupeKey('stage', 'task-1', '#1', `${part}2`));
    expect(dedupeKey('stage', 'task-1', '#1', part)).toBe(key);
  });

  it('a key too long as a whole is a digest too', () => {
    expect(dedupeKey('observed', 'a'.repeat(40), 'b'.repeat(40))).toMatch(/^observed:~[0-9a-f]{32}$/);
  });
});

describe('the material fingerprint', () => {
  it('is a fixed-size sha256 whatever the snapshot holds', () => {
    const small = normalizeTask(hostileWire(1), []);
    const big = normalizeTask({ ...hostileWire(2), artifacts: [] }, []);
    if (!small.ok || !big.ok) throw new Error('fixture');
    expect(materialFingerprint(small.value)).toMatch(/^[0-9a-f]{64}$/);
    expect(materialFingerprint(big.value)).toMatch(/^[0-9a-f]{64}$/);
    expect(materialFingerprint(small.value)).not.toBe(materialFingerprint(big.value));
  });
});

describe('the outbox byte budget', () => {
  it('trims the oldest events past OUTBOX_EVENT_BYTES, keeps ids monotonic and the newest event', () => {
    const createdAt = '2030-01-01T00:00:00.000Z';
    let doc = newCampaignDocument({ campaignId: 'c1', objective: 'o', createdAt, machine: initialMachine({ campaignId: 'c1', controllerId: 'argus-openoperator', maxAttempts: 3, createdAt }) });
    for (let i = 0; i < 150; i++) {
      doc = appendPublicEvents(doc, [{ kind: 'NEEDS_YOU', dedupeKey: `k${i}`, summary: WIDE.repeat(1000) }], '2030-01-01T00:00:00.000Z').doc;
    }
    const events = doc.outbox.events;
    expect(Buffer.byteLength(JSON.stringify(events))).toBeLessThanOrEqual(OUTBOX_EVENT_BYTES + 2);
    expect(events.length).toBeLessThan(150);
    expect(events[events.length - 1]!.seq).toBe(150);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => 150 - events.length + 1 + i));
    expect(doc.outbox.publishedKeys).toHaveLength(150);
  });
});
