/**
 * The structured half of the remote-text boundary: a parsed-but-raw control block, lease or
 * artifact list becomes the sanitized, capped value the rest of the service sees. Identifiers
 * that carry authority (context id, lease holder) are validated, never rewritten: one that
 * fails makes the whole answer `remote_payload_invalid`. Display fields (stage, attempt id,
 * artifact ids and names) are sanitized and capped; keys built from them are digests when they
 * are not plain identifiers (services/reducer/dedupe-key.ts).
 * @module
 */
import { err, ok, remoteError, type Result } from './errors.js';
import { isRemoteIdentifier, remoteText, REMOTE_TEXT_CAPS } from './sanitize.js';
import type { ControlMetadata, TaskSnapshot } from './snapshot.js';

interface RawLease {
  contextId: string;
  holder: string;
  epoch: number;
  expiresAt: string;
  ttlSeconds: number;
}

export const payloadInvalid = (sentence: string) => err(remoteError('remote_payload_invalid', sentence, 'ambiguous'));

const isInstant = (value: string) => value.length <= REMOTE_TEXT_CAPS.instant && /^[0-9T:.+\-Z]+$/.test(value) && Number.isFinite(Date.parse(value));

/** A lease readback: its context and holder decide authority, so they must be exact identifiers. */
export function boundLease(lease: RawLease | null, secrets: readonly string[]): Result<RawLease | null> {
  if (lease === null) return ok(null);
  if (!isRemoteIdentifier(lease.contextId, secrets)) return payloadInvalid('the remote lease names a context id that is not a valid identifier');
  if (!isRemoteIdentifier(lease.holder, secrets)) return payloadInvalid('the remote lease names a holder that is not a valid identifier');
  if (!isInstant(lease.expiresAt)) return payloadInvalid('the remote lease expiry is not an ISO-8601 instant');
  return ok({ contextId: lease.contextId, holder: lease.holder, epoch: lease.epoch, expiresAt: lease.expiresAt, ttlSeconds: lease.ttlSeconds });
}

/** The compact control block: stage and attempt id as capped text, the lease as exact identifiers. */
export function boundControl(control: ControlMetadata, secrets: readonly string[]): Result<ControlMetadata> {
  const lease = boundLease(control.lease, secrets);
  if (!lease.ok) return lease;
  return ok({
    revision: control.revision,
    stage: remoteText(control.stage, secrets, REMOTE_TEXT_CAPS.stage),
    attempt: control.attempt,
    attemptId: remoteText(control.attemptId, secrets, REMOTE_TEXT_CAPS.identifier),
    lease: lease.value,
    ...(control.missionComplete !== undefined ? { missionComplete: control.missionComplete } : {}),
  });
}

/** At most 32 artifacts (the remote's first ones), ids and names capped; an id that sanitizes to nothing is dropped. */
export function boundArtifacts(artifacts: readonly { artifactId: string; name?: string | null | undefined }[], secrets: readonly string[]): TaskSnapshot['artifacts'] {
  const out: TaskSnapshot['artifacts'] = [];
  const seen = new Set<string>();
  for (const a of artifacts) {
    if (out.length >= REMOTE_TEXT_CAPS.artifacts) break;
    const id = remoteText(a.artifactId, secrets, REMOTE_TEXT_CAPS.identifier);
    if (id === null || seen.has(id)) continue;
    seen.add(id);
    out.push({ id, name: remoteText(a.name, secrets, REMOTE_TEXT_CAPS.artifactName) });
  }
  return out;
}

/** Task and context ids are sent back to the remote and bind a campaign: exact identifiers only. */
export function checkTaskIdentity(task: { id: string; contextId: string }, secrets: readonly string[]): Result<true> {
  if (!isRemoteIdentifier(task.id, secrets)) return payloadInvalid('the remote task id is not a valid identifier');
  if (!isRemoteIdentifier(task.contextId, secrets)) return payloadInvalid('the remote task context id is not a valid identifier');
  return ok(true);
}

/**
 * An answer about another task than the one asked for, or in another context than the one the
 * campaign is bound to, is invalid: never adopted, never used for a claim.
 */
export function checkAnswerIsAbout(snapshot: TaskSnapshot, expected: { taskId: string; contextId?: string | null }): Result<TaskSnapshot> {
  if (snapshot.id !== expected.taskId) return payloadInvalid('the remote answered about another task than the one asked for');
  if (expected.contextId && snapshot.contextId !== expected.contextId) {
    return payloadInvalid('the remote task reports another context than the one the campaign is bound to');
  }
  return ok(snapshot);
}
