/**
 * Prometheus metrics, one registry per supervisor (never the global one, so two supervisors
 * in one process, as in tests or a plugin host, do not collide).
 * @module
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { PUBLIC_EVENT_KINDS } from '../machines/vocabulary.js';

export interface SupervisorMetrics {
  registry: Registry;
  ticks: Counter<'result'>;
  storeWrites: Counter;
  modelCalls: Counter<'runtime'>;
  publicEvents: Counter<'kind'>;
  wakeRequests: Counter<'target'>;
  remoteRequestSeconds: Histogram<'method' | 'outcome'>;
  campaigns: Gauge<'state'>;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): SupervisorMetrics {
  const registry = new Registry();
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
      help: 'Calls into a model runtime (Argus turns, Foreman assessments).',
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
      help: 'Wake requests recorded for a decision runtime.',
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
      help: 'Campaigns by authority state.',
      labelNames: ['state'],
      registers: [registry],
    }),
  };
  // Zero-initialise the labelled series so dashboards see them before the first event.
  for (const result of ['unchanged', 'changed', 'failed']) m.ticks.inc({ result }, 0);
  for (const runtime of ['argus', 'foreman']) m.modelCalls.inc({ runtime }, 0);
  for (const kind of PUBLIC_EVENT_KINDS) m.publicEvents.inc({ kind }, 0);
  return m;
}
