/**
 * Prometheus metrics, one registry per supervisor (never the global one, so two supervisors
 * in one process, as in tests or a plugin host, do not collide).
 * @module
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { PUBLIC_EVENT_KINDS } from '../../machines/vocabulary.js';

export interface SupervisorMetrics {
  registry: Registry;
  ticks: Counter<'result'>;
  storeWrites: Counter;
  modelCalls: Counter<'runtime'>;
  publicEvents: Counter<'kind'>;
  wakeRequests: Counter<'target'>;
  remoteRequestSeconds: Histogram<'method' | 'outcome'>;
  campaigns: Gauge<'authority' | 'attention'>;
  authFailures: Counter<'reason'>;
  /** ListTasks entries refused by the fleet sweep (never adopted; read with GetTask), by reason. */
  fleetListRefusals: Counter<'reason'>;
  /** Replicas on PostgreSQL: campaign rights this replica took, lost, or handed over. */
  ownershipChanges: Counter<'kind'>;
  /** Replicas on PostgreSQL: the round trip of the one renewal statement per beat. */
  ownershipRenewSeconds: Histogram<'outcome'>;
  /**
   * Where the campaigns gauge reads its samples at scrape time: one per (authority, attention)
   * combination that has campaigns now, so a combination that emptied disappears.
   */
  countCampaignsFrom(source: () => Iterable<{ authority: string; attention: string }>): void;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): SupervisorMetrics {
  const registry = new Registry();
  let campaignSource: () => Iterable<{ authority: string; attention: string }> = () => [];
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'argus_supervisor_' });
  const m: SupervisorMetrics = {
    registry,
    ticks: new Counter({
      name: 'argus_supervisor_ticks_total',
      help: 'Heartbeat ticks by result: unchanged (one request, nothing else), changed, failed.',
      labelNames: ['result'],
      registers: [registry],
    }),
    storeWrites: new Counter({
      name: 'argus_supervisor_store_writes_total',
      help: 'Durable campaign-document writes.',
      registers: [registry],
    }),
    modelCalls: new Counter({
      name: 'argus_supervisor_model_calls_total',
      help: 'Model calls: every argus_message sent and every Foreman assessment started, nothing else (not status reads, not project creation, not wake requests).',
      labelNames: ['runtime'],
      registers: [registry],
    }),
    publicEvents: new Counter({
      name: 'argus_supervisor_public_events_total',
      help: 'Events that reached the public outbox, by kind.',
      labelNames: ['kind'],
      registers: [registry],
    }),
    wakeRequests: new Counter({
      name: 'argus_supervisor_wake_requests_total',
      help: 'Wake requests recorded durably for a decision runtime (a request, not a model call).',
      labelNames: ['target'],
      registers: [registry],
    }),
    remoteRequestSeconds: new Histogram({
      name: 'argus_supervisor_remote_request_seconds',
      help: 'Latency of requests to the remote A2A agent.',
      labelNames: ['method', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    campaigns: new Gauge({
      name: 'argus_supervisor_campaigns',
      help: 'Campaigns by authority state and attention; a combination with no campaign has no sample.',
      labelNames: ['authority', 'attention'],
      registers: [registry],
      // Recounted from the read model on every scrape: never drifts, costs nothing per tick.
      collect() {
        const counts = new Map<string, { authority: string; attention: string; n: number }>();
        for (const { authority, attention } of campaignSource()) {
          const key = `${authority}\u0000${attention}`;
          const found = counts.get(key) ?? { authority, attention, n: 0 };
          found.n++;
          counts.set(key, found);
        }
        this.reset();
        for (const { authority, attention, n } of counts.values()) this.set({ authority, attention }, n);
      },
    }),
    authFailures: new Counter({
      name: 'argus_supervisor_auth_failures_total',
      help: 'API requests and logins refused for a missing or wrong key, by reason (missing, invalid, throttled: a key from a client in back-off, not compared).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    fleetListRefusals: new Counter({
      name: 'argus_supervisor_fleet_list_refusals_total',
      help: 'ListTasks entries the fleet sweep refused (never adopted; those tasks are read with GetTask), by reason.',
      labelNames: ['reason'],
      registers: [registry],
    }),
    ownershipChanges: new Counter({
      name: 'argus_supervisor_ownership_changes_total',
      help: 'Replicas on PostgreSQL: campaign rights this replica took (new, orphaned, handed over), lost (not renewed in time, taken over, fence_stale) or handed over (above its fair share).',
      labelNames: ['kind'],
      registers: [registry],
    }),
    ownershipRenewSeconds: new Histogram({
      name: 'argus_supervisor_ownership_renew_seconds',
      help: 'Replicas on PostgreSQL: round trip of the beat statement that renews every campaign right of this replica (outcome answered or failed); near the renew deadline (TTL x 2/3), rights start to be lost.',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    countCampaignsFrom(source) {
      campaignSource = source;
    },
  };
  // Zero-initialise the labelled series so dashboards see them before the first event.
  for (const result of ['unchanged', 'changed', 'failed']) m.ticks.inc({ result }, 0);
  for (const runtime of ['argus', 'foreman']) m.modelCalls.inc({ runtime }, 0);
  for (const target of ['argus', 'foreman']) m.wakeRequests.inc({ target }, 0);
  for (const kind of PUBLIC_EVENT_KINDS) m.publicEvents.inc({ kind }, 0);
  for (const reason of ['missing', 'invalid', 'throttled']) m.authFailures.inc({ reason }, 0);
  return m;
}
