/**
 * The material fingerprint: one string per snapshot, equal exactly when nothing that matters
 * changed. An unchanged tick (the common case, 10,000 campaigns every cadence) then costs one
 * string comparison: no write, no Foreman, no Argus.
 * @module
 */
import { hash } from 'node:crypto';
import type { TaskSnapshot } from '../../adapters/a2a/snapshot.js';

/**
 * Material: task id, state, stage, attempt, attemptId, artifact ids, lease holder and epoch,
 * missionComplete. Never: revision (bumps on every progress step), progress, timestamp,
 * status-message text or digest (routine stdout lives there), lease `expiresAt` (every renewal
 * moves it; the heartbeat tracks expiry itself).
 *
 * The fingerprint is a sha256 hex of the sanitized fields (the snapshot has crossed the
 * remote-text boundary), so its size is fixed whatever the remote sends.
 *
 * @example
 *   if (materialFingerprint(snapshot) === view.fingerprint) return; // nothing material
 */
export function materialFingerprint(snapshot: TaskSnapshot): string {
  const control = snapshot.control;
  const lease = control?.lease ?? null;
  // Artifact order is the remote's listing order, not a change; sort a copy (lists are short).
  const artifactIds = snapshot.artifacts.length > 1 ? snapshot.artifacts.map((a) => a.id).sort() : snapshot.artifacts.map((a) => a.id);
  const fields = JSON.stringify([
    2, // fingerprint format version: a new format must never compare equal to an old one
    snapshot.id,
    snapshot.state,
    control?.stage ?? null,
    control ? control.attempt : null,
    control?.attemptId ?? null,
    artifactIds,
    lease ? lease.holder : null,
    lease ? lease.epoch : null,
    control?.missionComplete === true,
  ]);
  // One-shot `hash` (Node >= 20.12): the same digest without a Hash object per read.
  return hash('sha256', fields, 'hex');
}
