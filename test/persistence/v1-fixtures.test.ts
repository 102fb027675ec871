/**
 * The schema-v1 → v2 migration against the v1 fixtures (test/persistence/fixtures/v1, written
 * by the release that owns v1). Every fixture parses as v1, migrates, and keeps what must not
 * change: outbox ids, seqs and nextSeq, the journaled intents, idempotency answers, the
 * binding. What v1 kept beside the snapshot (lease, question, attempts, read failures, the
 * remote view) is in the migrated snapshot's context, with the values the v1 document had.
 * The expected values are MANIFEST.md's (which the generator derived from the files).
 */
import { copyFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_ENVIRONMENT, type CampaignContext } from '../../machines/campaign.types.js';
import { CAMPAIGN_MACHINE_VERSION_V2 } from '../../machines/campaign.migrations.js';
import { CAMPAIGN_MACHINE_VERSION } from '../../machines/campaign.version.js';
import { campaignDocumentSchema, parseCampaignDocument, type CampaignDocument } from '../../persistence/campaign-document.js';
import { openCampaignStore } from '../../persistence/campaign-store.js';
import { campaignDocumentV1Schema, type CampaignDocumentV1 } from '../../persistence/migrations/v1-schema.js';
import { V1_DIR, v1Fixture, v1FixtureNames, v1FixtureText } from './support/v1-fixtures.js';
import { useTempDirs } from './support/temp-dir.js';

const tempDir = useTempDirs();

type Intent = [requestId: string, action: string, epoch: number | null, status: string | null];
interface Expected {
  /** The campaign@2 state value MANIFEST.md records. */
  value: unknown;
  outbox: string[];
  nextSeq: number;
  intents: Intent[];
  leaseEpoch: number | null;
  pendingQuestion: string | null;
  readFailures: number;
  idempotency: number;
}

const EXPECTED: Record<string, Expected> = {
  'ambiguous-intent': { value: { active: { authority: { 'ambiguous-intent': 'unresolved' }, attention: 'idle' } }, outbox: ['ambiguous-intent:1'], nextSeq: 2, intents: [['3e70d3f7-3ef9-40ea-9e45-d6c1e4f495d1', 'intervene', 1, 'ambiguous']], leaseEpoch: null, pendingQuestion: null, readFailures: 0, idempotency: 0 },
  closed: { value: 'closed', outbox: ['closed:1'], nextSeq: 2, intents: [], leaseEpoch: null, pendingQuestion: null, readFailures: 0, idempotency: 0 },
  controlling: { value: { active: { authority: { controlling: 'ready' }, attention: 'idle' } }, outbox: [], nextSeq: 1, intents: [['f235e767-3951-42ce-866c-a0d65817a915', 'intervene', 1, 'applied']], leaseEpoch: 1, pendingQuestion: null, readFailures: 0, idempotency: 1 },
  'journaled-unsent': { value: { active: { authority: { controlling: 'ready' }, attention: 'awaiting-review' } }, outbox: ['journaled-unsent:1'], nextSeq: 2, intents: [['e4ff14f6-b8a8-4a59-a195-5fa88c9a18e5', 'submit', 1, null]], leaseEpoch: 1, pendingQuestion: null, readFailures: 0, idempotency: 0 },
  'needs-you': { value: { active: { authority: 'observing', attention: 'needs-you' } }, outbox: ['needs-you:1'], nextSeq: 2, intents: [], leaseEpoch: null, pendingQuestion: 'blocked:~7065c0896284e6eede5628a6be8d1815', readFailures: 0, idempotency: 0 },
  'observing-with-events': { value: { active: { authority: 'observing', attention: 'awaiting-review' } }, outbox: ['observing-with-events:1', 'observing-with-events:2'], nextSeq: 3, intents: [], leaseEpoch: null, pendingQuestion: null, readFailures: 0, idempotency: 0 },
  paused: { value: 'paused', outbox: [], nextSeq: 1, intents: [], leaseEpoch: null, pendingQuestion: null, readFailures: 0, idempotency: 0 },
  'read-failures': { value: { active: { authority: 'observing', attention: 'idle' } }, outbox: [], nextSeq: 1, intents: [], leaseEpoch: null, pendingQuestion: null, readFailures: 2, idempotency: 0 },
};

/** Every key of the campaign@3 context: nothing of campaign@2's is left over, nothing missing. */
const CONTEXT_KEYS: (keyof CampaignContext)[] = [
  'attemptsSubmitted', 'campaignId', 'controllerId', 'createdAt', 'lastEpoch', 'lastErrorCode', 'lastHeldSince',
  'argus', 'lease', 'maxAttempts', 'pendingIntent', 'pendingQuestion', 'readFailures', 'remote', 'wakes',
  'binding', 'environment',
].sort() as (keyof CampaignContext)[];

/**
 * campaign@5: the heartbeat region; `idle` (atomic in campaign@2) is `idle.quiet`; and the old
 * `awaiting-review` placeholder, which never invoked anything (its wake is in the wake log), is
 * `idle.quiet` too: no turn was ever sent for it, so none is in flight.
 */
const withHeartbeat = (value: unknown): unknown => {
  if (typeof value === 'string') return value;
  const active = (value as { active: { attention: unknown } }).active;
  const attention = active.attention === 'idle' || active.attention === 'awaiting-review' ? { idle: 'quiet' } : active.attention;
  return { active: { ...active, attention, heartbeat: 'idle' } };
};

function migrate(name: string): { v1: CampaignDocumentV1; doc: CampaignDocument; snapshot: Record<string, unknown>; context: CampaignContext } {
  const v1 = campaignDocumentV1Schema.parse(v1Fixture(name));
  const parsed = parseCampaignDocument(v1Fixture(name), name);
  if (!parsed.ok) throw new Error(`${name}: ${parsed.code} ${parsed.reason}`);
  expect(parsed.migratedFrom).toBe(1);
  const snapshot = parsed.doc.machine.snapshot as Record<string, unknown>;
  return { v1, doc: parsed.doc, snapshot, context: snapshot.context as CampaignContext };
}

describe('v1 campaign-document fixtures migrate to v2', () => {
  it('every fixture file has expected values, and every expected fixture exists', () => {
    expect(v1FixtureNames()).toEqual(Object.keys(EXPECTED).sort());
  });

  it('the migrated snapshots carry this build\'s machine version, which is not campaign@2', () => {
    expect(CAMPAIGN_MACHINE_VERSION).not.toBe(CAMPAIGN_MACHINE_VERSION_V2);
    for (const name of v1FixtureNames()) expect(migrate(name).doc.machine.version).toBe(CAMPAIGN_MACHINE_VERSION);
  });

  it.each(Object.entries(EXPECTED))('%s keeps its records untouched', (name, want) => {
    const raw = v1Fixture(name);
    expect(raw.documentVersion).toBe(1);
    const { v1, doc } = migrate(name);
    expect(doc.documentVersion).toBe(2);
    expect({
      outbox: doc.outbox.events.map((e) => e.id),
      seqs: doc.outbox.events.map((e) => e.seq),
      nextSeq: doc.outbox.nextSeq,
      intents: doc.intents.map((i): Intent => [i.requestId, i.action, i.epoch, i.outcome?.status ?? null]),
      idempotency: doc.idempotency.length,
    }).toEqual({ outbox: want.outbox, seqs: want.outbox.map((id) => Number(id.split(':').at(-1))), nextSeq: want.nextSeq, intents: want.intents, idempotency: want.idempotency });
    // Byte for byte (as JSON) what the v1 file held: ids, digests, timestamps, answers.
    expect(doc.outbox).toEqual(raw.outbox);
    expect(doc.intents).toEqual(raw.intents);
    expect(doc.idempotency).toEqual(raw.idempotency);
    expect(doc.wake).toEqual(raw.wake);
    expect(doc.consumedDecisions).toEqual(raw.consumedDecisions);
    expect(doc.remote).toEqual(raw.remote);
    expect({ campaignId: doc.campaignId, objective: doc.objective, createdAt: doc.createdAt, sourceSha: doc.sourceSha }).toEqual({
      campaignId: v1.campaignId, objective: v1.objective, createdAt: v1.createdAt, sourceSha: v1.sourceSha,
    });
  });

  it.each(Object.entries(EXPECTED))('%s: the snapshot is the v1 one plus the heartbeat, its context says what the v1 document said', (name, want) => {
    const { v1, snapshot, context } = migrate(name);
    const old = (v1.machine as { snapshot: { value: unknown; historyValue: unknown; status: string; context: Record<string, unknown> } }).snapshot;
    expect(old.value).toEqual(want.value);
    expect(snapshot.value).toEqual(withHeartbeat(want.value));
    expect(snapshot.status).toBe(old.status);
    // History is kept, except that a node naming the old `awaiting-review` placeholder names idle.
    const placeholder = 'campaign.active.attention.awaiting-review';
    expect(snapshot.historyValue).toEqual(JSON.parse(JSON.stringify(old.historyValue).replaceAll(`"${placeholder}"`, '"campaign.active.attention.idle"')));
    // No child of campaign@2 survives; an active campaign@5 has exactly its long-lived status reader.
    expect(snapshot.children).toEqual(snapshot.value === 'paused' || snapshot.value === 'closed' ? {} : { statusReader: { snapshot: { status: 'active' }, src: 'statusReader', syncSnapshot: false } });
    expect(Object.keys(context).sort()).toEqual(CONTEXT_KEYS);
    expect({
      leaseEpoch: context.lease?.epoch ?? null,
      pendingQuestion: context.pendingQuestion?.key ?? null,
      readFailures: context.readFailures.consecutive,
      paused: snapshot.value === 'paused',
    }).toEqual({ leaseEpoch: want.leaseEpoch, pendingQuestion: want.pendingQuestion, readFailures: want.readFailures, paused: v1.paused });
    // The facts v1 kept in the document, now in the context (the one truth).
    expect(context.lease === null).toBe(v1.lease === null);
    if (v1.lease && context.lease) {
      expect(context.lease).toEqual({
        epoch: v1.lease.epoch, expiresAt: v1.lease.expiresAt, heldSince: (old.context.lease as { heldSince: string }).heldSince,
        confirmedAt: (old.context.lease as { heldSince: string }).heldSince, contextId: v1.lease.contextId, ttlSeconds: v1.lease.ttlSeconds,
      });
      expect(v1.controllerMode).toBe('controller');
    }
    expect(context.pendingQuestion?.askedAt ?? null).toBe(v1.pendingQuestion?.askedAt ?? null);
    expect(context.pendingQuestion?.key ?? null).toBe(v1.pendingQuestion?.eventId ?? null);
    expect(context.readFailures).toEqual({ consecutive: v1.readFailures.consecutiveFailures, nextReadAt: v1.readFailures.nextReadAt, criticalRaised: v1.readFailures.criticalRaised });
    expect(context.remote).toEqual(v1.remoteView);
    // The binding is the chart's since campaign@6: v1's task, in the context it was granted (the
    // lease's) or else the one its binding or its last read named.
    expect(context.binding).toEqual({ taskId: v1.remote.taskId, contextId: v1.lease?.contextId ?? v1.remote.contextId ?? v1.remoteView?.contextId ?? null });
    // The process's facts are never migrated: the host gives a restored context its own.
    expect(context.environment).toEqual(NO_ENVIRONMENT);
    expect(context.attemptsSubmitted).toBe(v1.attemptsSubmitted);
    expect(context.maxAttempts).toBe(v1.maxAttempts);
    expect(context.createdAt).toBe(v1.createdAt);
    const oldIntent = old.context.pendingIntent as { requestId: string; kind: string } | null;
    // campaign@2 knew only the id and kind of an open intent; what campaign@3 adds is unknown (null).
    expect(context.pendingIntent).toEqual(oldIntent === null ? null : { ...oldIntent, epoch: null, mutation: null, binding: null, readback: null });
    expect({ lastEpoch: context.lastEpoch, lastHeldSince: context.lastHeldSince, lastErrorCode: context.lastErrorCode, lastArgusEventKey: context.wakes.lastArgusEventKey }).toEqual({
      lastEpoch: old.context.lastEpoch, lastHeldSince: old.context.lastHeldSince, lastErrorCode: old.context.lastErrorCode,
      lastArgusEventKey: (old.context.wakes as { lastArgusEventKey: unknown }).lastArgusEventKey,
    });
  });

  it.each(v1FixtureNames())('%s: the migrated document is valid v2 and reads back unchanged once written', (name) => {
    const { doc } = migrate(name);
    const written = JSON.parse(JSON.stringify(doc)) as unknown;
    expect(campaignDocumentSchema.parse(written)).toEqual(doc);
    expect(parseCampaignDocument(written, name)).toEqual({ ok: true, doc });
  });
});

describe('v1 migration: edge cases a fixture does not cover', () => {
  const controlling = () => v1Fixture('controlling') as Record<string, any>;

  it('fills a null binding context from the lease first, then the remote view; never overwrites one', () => {
    const fromLease = { ...controlling(), remote: { taskId: 'task-2', contextId: null, attached: true }, remoteView: { ...controlling().remoteView, contextId: 'ctx-view' } };
    expect(parseCampaignDocument(fromLease)).toMatchObject({ ok: true, doc: { remote: { taskId: 'task-2', contextId: 'ctx-2', attached: true } } });
    const fromView = { ...fromLease, lease: null };
    expect(parseCampaignDocument(fromView)).toMatchObject({ ok: true, doc: { remote: { contextId: 'ctx-view' } } });
    const unknown = { ...fromView, remoteView: null };
    expect(parseCampaignDocument(unknown)).toMatchObject({ ok: true, doc: { remote: { contextId: null } } });
    const named = { ...controlling(), remote: { taskId: 'task-2', contextId: 'ctx-bound', attached: true } };
    expect(parseCampaignDocument(named)).toMatchObject({ ok: true, doc: { remote: { contextId: 'ctx-bound' } } });
  });

  it('keeps the higher attempt count when the v1 document counted a submit the snapshot missed', () => {
    const raw = { ...controlling(), attemptsSubmitted: 2 };
    const parsed = parseCampaignDocument(raw);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect((parsed.doc.machine.snapshot as { context: CampaignContext }).context.attemptsSubmitted).toBe(2);
  });

  it('a snapshot lease without a document copy gets the binding context and the default TTL', () => {
    const raw = { ...controlling(), lease: null };
    const parsed = parseCampaignDocument(raw);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect((parsed.doc.machine.snapshot as { context: CampaignContext }).context.lease).toMatchObject({ epoch: 1, contextId: 'ctx-2', ttlSeconds: 600 });
  });

  it('a question without a document copy was asked no later than the campaign began', () => {
    const raw = v1Fixture('needs-you');
    const parsed = parseCampaignDocument({ ...raw, pendingQuestion: null });
    if (!parsed.ok) throw new Error(parsed.reason);
    expect((parsed.doc.machine.snapshot as { context: CampaignContext }).context.pendingQuestion?.askedAt).toBe(raw.createdAt);
  });

  it.each([
    ['an effect state campaign@2 never persisted', (s: any) => ({ ...s, value: { active: { authority: { controlling: 'relaying' }, attention: 'idle' } } })],
    ['an unknown attention state', (s: any) => ({ ...s, value: { active: { authority: 'observing', attention: 'busy' } } })],
    ['a context field missing', (s: any) => ({ ...s, context: { ...s.context, lastEpoch: undefined } })],
    ['an unknown intent kind', (s: any) => ({ ...s, context: { ...s.context, pendingIntent: { requestId: 'r', kind: 'claim' } } })],
    ['no context at all', (s: any) => ({ ...s, context: null })],
  ])('refuses %s as document_corrupt', (_label, edit) => {
    const raw = controlling();
    const broken = { ...raw, machine: { ...raw.machine, snapshot: edit(raw.machine.snapshot) } };
    expect(parseCampaignDocument(broken)).toMatchObject({ ok: false, code: 'document_corrupt', reason: expect.stringContaining('v1 migration') });
  });

  it('carries a snapshot of another machine version over as it is, for the version check to refuse', () => {
    const raw = controlling();
    const parsed = parseCampaignDocument({ ...raw, machine: { ...raw.machine, version: 'campaign@1' } });
    expect(parsed).toMatchObject({ ok: true, doc: { machine: { version: 'campaign@1', snapshot: raw.machine.snapshot } } });
  });
});

describe('v1 documents in a store', () => {
  it('load migrates in memory (logged once, file untouched); the next write stores v2 with the same records', async () => {
    const root = await tempDir();
    const infos: object[] = [];
    const store = await openCampaignStore({ root, logger: { info: (o) => infos.push(o), warn: () => {}, error: () => {} }, machineVersionKnown: (v) => v === CAMPAIGN_MACHINE_VERSION });
    for (const name of v1FixtureNames()) await copyFile(path.join(V1_DIR, `${name}.json`), store.layout.documentPath(name));
    const first = await store.loadAll();
    expect(first.map((r) => [r.id, r.ok, r.ok && r.migratedFrom])).toEqual(v1FixtureNames().map((n) => [n, true, 1]));
    await store.loadAll();
    // loadAll reads concurrently: the log order is not the file order.
    const logged = [...infos].sort((a, b) => String((a as { campaignId: string }).campaignId).localeCompare(String((b as { campaignId: string }).campaignId)));
    expect(logged).toEqual(v1FixtureNames().map((campaignId) => ({ campaignId, fromVersion: 1 })));
    for (const name of v1FixtureNames()) expect(await readFile(store.layout.documentPath(name), 'utf8')).toBe(v1FixtureText(name));
    expect(store.writes()).toBe(0);

    const written = await store.transact('journaled-unsent', (d) => ({ ...d, sourceSha: 'abc123' }));
    if (!written.ok) throw new Error(written.reason);
    const onDisk = JSON.parse(await readFile(store.layout.documentPath('journaled-unsent'), 'utf8')) as CampaignDocument;
    expect(onDisk.documentVersion).toBe(2);
    const reloaded = await store.load('journaled-unsent');
    if (!reloaded.ok) throw new Error(reloaded.reason);
    expect(reloaded).not.toHaveProperty('migratedFrom');
    const before = first.find((r) => r.id === 'journaled-unsent');
    if (!before?.ok) throw new Error('journaled-unsent did not load');
    expect(reloaded.doc).toEqual({ ...before.doc, sourceSha: 'abc123' });
  });
});
