/**
 * The supervisor's one remote: the A2A client (none until ARGUS_SUPERVISOR_ENABLED=1, the
 * original plugin's opt-in), what discovery found, and whether it answered lately (/health).
 * @module
 */
import { createA2AClient, type A2AClient } from '../../adapters/a2a/index.js';
import type { RemoteDescription } from '../../adapters/a2a/discovery.js';
import type { Logger } from '../../adapters/logger.js';
import { apiError, type ApiError } from '../api/api-errors.js';
import type { SupervisorMetrics } from '../api/metrics.js';
import { isUnreachable } from '../campaign/effects.js';
import type { SupervisorConfig } from './config.js';

export class RemoteLink {
  readonly client: A2AClient | null;
  description: RemoteDescription | null = null;
  reachable: boolean | null = null;

  constructor(
    private readonly config: SupervisorConfig,
    private readonly logger: Logger,
    metrics: SupervisorMetrics,
    injected?: A2AClient | null,
  ) {
    this.client =
      injected !== undefined
        ? injected
        : config.a2aUrl && config.enabled
          ? createA2AClient({
              baseUrl: config.a2aUrl,
              ...(config.a2aToken ? { token: config.a2aToken } : {}),
              // Our own API key is a secret too: a remote that somehow echoes it never gets it shown.
              ...(config.apiKey ? { redact: [config.apiKey] } : {}),
              timeouts: { overallMs: config.remoteDeadlineSeconds * 1000 },
              logger,
              onRequest: (method, outcome, seconds) => metrics.remoteRequestSeconds.observe({ method, outcome }, seconds),
            })
          : null;
  }

  /** Why nothing can be sent or read: not configured, or not enabled. Null when there is a remote. */
  noRemote(): ApiError | null {
    if (this.client) return null;
    return this.config.a2aUrl && !this.config.enabled
      ? apiError('supervisor_disabled', 'ARGUS_SUPERVISOR_ENABLED is not 1, so the supervisor contacts no remote.')
      : apiError('remote_not_configured', 'No OpenTraining A2A URL is configured.');
  }

  /** A status read's answer: a clear answer (task not found, bad payload) still means the remote is up. */
  readAnswered(ok: boolean, code: string | null): void {
    if (ok) this.reachable = true;
    else if (isUnreachable(code)) this.reachable = false;
  }

  async discover(): Promise<void> {
    if (!this.client) return;
    const found = await this.client.discover();
    if (found.ok) {
      this.description = found.value;
      this.reachable = true;
      this.logger.info({ protocolVersion: found.value.protocolVersion, mutationsEnabled: found.value.mutationsEnabled }, 'remote discovered');
    } else {
      this.reachable = false;
      this.logger.warn({ code: found.error.code }, 'remote discovery failed; observation will retry on the heartbeat');
    }
  }

  /** The cached description, or a discovery now if start-up could not reach the remote. */
  async ensureDescription(): Promise<RemoteDescription | null> {
    if (!this.description) await this.discover();
    return this.description;
  }

  close(): Promise<void> {
    return this.client?.close() ?? Promise.resolve();
  }
}
