/**
 * What a persisted snapshot must become before XState restores it. XState restores the children
 * a snapshot names and starts no invoke of a state it re-enters, so the chart's long-lived
 * `statusReader` must be in `children` whenever the campaign is active, and a read that was in
 * flight when the snapshot was written can never be answered by the restarted reader.
 *
 * - `campaign@3` invoked one promise actor per read (`readStatus`) and had no reader; its
 *   context is `campaign@4`'s, so it restores after the same two steps.
 * - A snapshot in `heartbeat.reading` restores in `heartbeat.idle`: the next TICK reads again
 *   (a status read only reads, so nothing is lost or repeated that matters).
 * @module
 */
import { CAMPAIGN_MACHINE_VERSION, type PersistedCampaignMachine } from './campaign.version.js';

export const CAMPAIGN_MACHINE_VERSION_3 = 'campaign@3';

/** A callback actor persists no state of its own: restoring this entry starts the reader again. */
const READER_CHILD = { snapshot: { status: 'active' }, src: 'statusReader', syncSnapshot: false } as const;

export type RestoreCheck = { ok: true; snapshot: unknown } | { ok: false; code: 'machine_version_unknown'; version: string };

export const isKnownMachineVersion = (version: string): boolean => version === CAMPAIGN_MACHINE_VERSION || version === CAMPAIGN_MACHINE_VERSION_3;

/** Refuses a snapshot written by any other machine version (the caller fails closed). */
export function checkRestorable(persisted: PersistedCampaignMachine): RestoreCheck {
  if (!isKnownMachineVersion(persisted.version)) return { ok: false, code: 'machine_version_unknown', version: persisted.version };
  return { ok: true, snapshot: migrateCampaign3to4(persisted.snapshot) };
}

/**
 * A `campaign@3` or `campaign@4` persisted snapshot → one `campaign@4` restores as it should.
 * Anything that is not snapshot-shaped is handed on untouched, for XState to refuse.
 */
export function migrateCampaign3to4(snapshot: unknown): unknown {
  if (!isRecord(snapshot) || !isRecord(snapshot.value)) return snapshot;
  const { readStatus: _perReadChild, statusReader: _reader, ...children } = isRecord(snapshot.children) ? snapshot.children : {};
  const active = snapshot.value.active;
  if (!isRecord(active)) return { ...snapshot, children };
  return {
    ...snapshot,
    value: { ...snapshot.value, active: { ...active, heartbeat: 'idle' } },
    children: { ...children, statusReader: READER_CHILD },
  };
}

const isRecord = (raw: unknown): raw is Record<string, unknown> => typeof raw === 'object' && raw !== null && !Array.isArray(raw);
