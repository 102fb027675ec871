/**
 * The authenticated health view: runtime presence, configured booleans, the last tick and the
 * remote's discovered capabilities. Never a credential and never the remote URL.
 * @module
 */
import { existsSync } from 'node:fs';
import type { RemoteDescription } from '../../adapters/a2a/discovery.js';
import type { DecisionAvailability } from '../decisions/availability.js';
import type { SupervisorConfig } from '../config/config.js';
import type { SweepReport } from './heartbeat.js';
import type { HealthView } from '../api/supervisor-api.js';

export interface HealthInputs {
  config: SupervisorConfig;
  /** `owner`: holds its right to host now; `deposed`: held it and lost it (taken over, renewal failed). */
  hosting: { owner: boolean; deposed: boolean };
  lastSweep: SweepReport | null;
  campaigns: number;
  corrupt: number;
  remoteReachable: boolean | null;
  description: RemoteDescription | null;
  /** Where discovery stands (it runs in the background from start-up until it answers). */
  discovery: 'not_configured' | 'discovering' | 'retrying' | 'discovered';
  /** The decision runtime's own report: names of missing parts only, never a path or a value. */
  decisions: DecisionAvailability;
}

export function buildHealth({ config, hosting, lastSweep, campaigns, corrupt, remoteReachable, description, discovery, decisions }: HealthInputs): HealthView {
  return {
    enabled: config.enabled,
    // Presence of the configured interpreters only; `decisions` says whether each runtime can run.
    runtime: {
      argus: config.argusPython ? (existsSync(config.argusPython) ? 'present' : 'missing') : 'not_configured',
      foreman: config.foremanEnabled ? (config.foremanPython && existsSync(config.foremanPython) ? 'present' : 'missing') : 'disabled',
    },
    decisions: {
      argus: { available: decisions.argus.available, missing: [...decisions.argus.missing] },
      foreman: { enabled: decisions.foreman.enabled, available: decisions.foreman.available, missing: [...decisions.foreman.missing] },
    },
    configured: { remote: config.a2aUrl !== null, remote_token: config.a2aToken !== null, api_key: config.apiKey !== null, backend: config.backend !== null },
    api_key_source: config.apiKeySource,
    controller_id: config.controllerId,
    hosting: { ...hosting },
    heartbeat_seconds: config.heartbeatSeconds,
    last_tick: lastSweep ? { at: new Date(lastSweep.finishedAt).toISOString(), ticked: lastSweep.ticked, errors: lastSweep.errors } : null,
    campaigns: { total: campaigns, corrupt },
    remote: {
      reachable: remoteReachable,
      discovery,
      protocol_version: description?.protocolVersion ?? null,
      capabilities: description ? { ...description.capabilities } : null,
      control_extension: description?.controlExtension ?? null,
      mutations_enabled: description?.mutationsEnabled ?? null,
      unsupported: description ? [...description.unsupported] : [],
    },
  };
}
