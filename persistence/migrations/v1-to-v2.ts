/**
 * Schema v1 → v2 of the campaign document, in memory on read (the next write stores v2).
 * v2 keeps only what the chart never reads (binding, outbox, wake log, journal, consumed
 * decisions, idempotency answers) beside the snapshot; everything v1 kept twice (lease, mode,
 * question, attempts, read failures, remote view, pause flag) moves into the snapshot's
 * context through the machine's own migration. The records are carried over untouched: a
 * consumer deduping on event ids, a journaled intent in doubt, a stored idempotent answer all
 * mean after the migration exactly what they meant before.
 * @module
 */
import { migrateCampaign2to3, CAMPAIGN_MACHINE_VERSION_V2, type CampaignV1Facts } from '../../machines/campaign.migrations.js';
import type { RemoteBinding } from '../document-records.js';
import type { CampaignDocumentV1 } from './v1-schema.js';

/**
 * The v2 document this migration builds (campaign-document.ts validates it against the v2
 * schema before anyone sees it; named structurally here so the schema file can import this one).
 */
export interface MigratedDocumentV2 extends Pick<CampaignDocumentV1, 'campaignId' | 'objective' | 'createdAt' | 'sourceSha' | 'outbox' | 'wake' | 'intents' | 'consumedDecisions' | 'idempotency'> {
  documentVersion: 2;
  remote: RemoteBinding;
  machine: { version: string; snapshot: unknown };
}

export type V1Migration = { ok: true; doc: MigratedDocumentV2 } | { ok: false; reason: string };

export function migrateV1toV2(v1: CampaignDocumentV1): V1Migration {
  // Today's release always wrote the first snapshot with the document; one without a snapshot
  // never restored there either, and inventing a state for it here would be a guess.
  if (v1.machine === null) return { ok: false, reason: 'v1 document has no machine snapshot to migrate' };
  const machine = migrateMachine(v1.machine, v1);
  if (!machine.ok) return machine;
  return {
    ok: true,
    doc: {
      documentVersion: 2,
      campaignId: v1.campaignId,
      objective: v1.objective,
      createdAt: v1.createdAt,
      sourceSha: v1.sourceSha,
      remote: migrateBinding(v1),
      outbox: v1.outbox,
      wake: v1.wake,
      intents: v1.intents,
      consumedDecisions: v1.consumedDecisions,
      idempotency: v1.idempotency,
      machine: machine.machine,
    },
  };
}

type MachineMigration = { ok: true; machine: MigratedDocumentV2['machine'] } | { ok: false; reason: string };

function migrateMachine(machine: NonNullable<CampaignDocumentV1['machine']>, v1: CampaignDocumentV1): MachineMigration {
  // Another machine version is carried over as it is: the store's machine-version check then
  // refuses it (`machine_version_unknown`, reported, never rewritten), as v1 reads did.
  if (machine.version !== CAMPAIGN_MACHINE_VERSION_V2) return { ok: true, machine };
  const migrated = migrateCampaign2to3(machine.snapshot, v1Facts(v1));
  if (!migrated.ok) return migrated;
  return { ok: true, machine: { version: migrated.version, snapshot: migrated.snapshot } };
}

export function v1Facts(v1: CampaignDocumentV1): CampaignV1Facts {
  return {
    createdAt: v1.createdAt,
    attemptsSubmitted: v1.attemptsSubmitted,
    lease: v1.lease === null ? null : { contextId: v1.lease.contextId, ttlSeconds: v1.lease.ttlSeconds },
    bindingContextId: v1.remote.contextId,
    bindingTaskId: v1.remote.taskId,
    remoteView: v1.remoteView,
    pendingQuestion: v1.pendingQuestion === null ? null : { askedAt: v1.pendingQuestion.askedAt },
    readFailures: v1.readFailures,
  };
}

/**
 * v1 left `remote.contextId` null for an attached task until something wrote it, while the
 * context it lives in was already known from a read (`remoteView`) or a claim (`lease`). In v2
 * the binding is the only place the services take the context from (every effect's input),
 * so a known context is filled in; a v1 binding that names one is never overwritten. The
 * lease's context wins over the view's: it is the context we were granted control of.
 */
function migrateBinding(v1: CampaignDocumentV1): RemoteBinding {
  const contextId = v1.remote.contextId ?? v1.lease?.contextId ?? v1.remoteView?.contextId ?? null;
  return { taskId: v1.remote.taskId, contextId, attached: v1.remote.attached };
}
