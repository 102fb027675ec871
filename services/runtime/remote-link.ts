/**
 * The supervisor's one remote: the A2A client (none until ARGUS_SUPERVISOR_ENABLED=1, the
 * original plugin's opt-in), what discovery found, and whether it answered lately (/health).
 * Discovery runs in the background from start-up, retried with back-off until it answers, so
 * a remote that is slow or down never keeps `serve` from listening.
 * @module
 */
import { createA2AClient, type A2AClient } from '../../adapters/a2a/index.js';
import type { RemoteDescription } from '../../adapters/a2a/discovery.js';
import type { Logger } from '../../adapters/logger.js';
import { apiError, type ApiError } from '../contract/api-errors.js';
import type { SupervisorMetrics } from '../metrics/metrics.js';
import { isUnreachable } from '../campaign/effects.js';
import type { SupervisorConfig } from '../config/config.js';

/** Where discovery stands: `/health` reports it (`remote.discovery`). */
export type DiscoveryState = 'not_configured' | 'discovering' | 'retrying' | 'discovered';

/** Back-off between background discovery attempts: 1 s doubling to 60 s. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;

export class RemoteLink {
  readonly client: A2AClient | null;
  description: RemoteDescription | null = null;
  reachable: boolean | null = null;
  /** The discovery attempt in flight, if any: callers that must not wait look at this. */
  private attempt: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private failures = 0;

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

  get discovery(): DiscoveryState {
    if (!this.client) return 'not_configured';
    if (this.description) return 'discovered';
    return this.failures > 0 ? 'retrying' : 'discovering';
  }

  /** True while a discovery attempt is in flight and nothing is known yet: mutations do not wait for it. */
  get discovering(): boolean {
    return this.attempt !== null && this.description === null;
  }

  /**
   * Discovers now and, until it succeeds, again with back-off (1 s doubling to 60 s), each
   * attempt bounded by the remote deadline. `onDiscovered` runs once it answers.
   */
  discoverInBackground(onDiscovered: () => void): void {
    if (!this.client || this.closed) return;
    void this.discover().then(() => {
      if (this.closed) return;
      if (this.description) return onDiscovered();
      const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.max(0, this.failures - 1));
      this.retryTimer = setTimeout(() => this.discoverInBackground(onDiscovered), delay);
      this.retryTimer.unref?.();
    });
  }

  /** One discovery; concurrent callers share the attempt in flight. */
  discover(): Promise<void> {
    this.attempt ??= this.discoverOnce().finally(() => {
      this.attempt = null;
    });
    return this.attempt;
  }

  private async discoverOnce(): Promise<void> {
    if (!this.client) return;
    const found = await this.client.discover();
    if (found.ok) {
      this.description = found.value;
      this.reachable = true;
      this.logger.info({ protocolVersion: found.value.protocolVersion, mutationsEnabled: found.value.mutationsEnabled }, 'remote discovered');
    } else {
      this.reachable = false;
      this.failures++;
      this.logger.warn({ code: found.error.code }, 'remote discovery failed; retrying in the background');
    }
  }

  /**
   * The cached description, or a discovery now if none is in flight. While one is (start-up's,
   * or its retry), nothing waits for it: the chart then refuses with `remote_unavailable`.
   */
  async ensureDescription(): Promise<RemoteDescription | null> {
    if (!this.description && !this.discovering) await this.discover();
    return this.description;
  }

  close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    return this.client?.close() ?? Promise.resolve();
  }
}
