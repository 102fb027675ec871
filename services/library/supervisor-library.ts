/**
 * The library a plugin host embeds (docs/library.md): a small typed facade over the internal
 * supervisor. Every command goes through the supervisor's own API methods (`campaigns`,
 * `campaignAction`), so it meets the same validation, refusal table, request gate and
 * idempotency as the HTTP API. It exports no actor, no store, no raw event send and no live
 * object of the read model: views and events are copies, so a host cannot forge a fact.
 *
 * @example
 *   const supervisor = createSupervisor({ config: loadConfig(process.env) });
 *   await supervisor.start();
 *   const created = await supervisor.campaigns.create({ campaign_id: 'c1', objective: 'Reach 76% top-1', remote_task_id: 'task-1' });
 *   const claimed = await supervisor.campaign('c1').request({ action: 'claim' });
 *   await supervisor.stop();
 * @module
 */
import { silentLogger, type Logger } from '../../adapters/logger.js';
import { isValidIdempotencyKey } from '../api/request-gate.js';
import type { Supervisor } from '../runtime/supervisor-types.js';
import { buildSupervisor } from '../runtime/supervisor.js';
import type {
  Answer,
  CampaignCommand,
  CampaignDetail,
  CampaignHandle,
  CampaignView,
  CommandAnswer,
  LibraryOptions,
  LibrarySupervisor,
  NewCampaign,
  PublicEvent,
  RequestOptions,
  Unsubscribe,
} from './library-types.js';

const OPTION_KEYS = new Set(['config', 'logger', 'concurrency']);
type Phase = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

/** Plain data, detached from the read model (views carry a lazy `allowed_actions`: evaluated here). */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const refused = (message: string): Answer<never> => ({ ok: false, error: { code: 'invalid_request', message } });

/** Creates the supervisor; nothing is opened or contacted before `start()`. */
export function createSupervisor(options: LibraryOptions): LibrarySupervisor {
  if (typeof options !== 'object' || options === null) throw new TypeError('createSupervisor needs { config } (from loadConfig).');
  const unknown = Object.keys(options).filter((k) => !OPTION_KEYS.has(k));
  if (unknown.length) throw new TypeError(`createSupervisor does not take: ${unknown.map((k) => k.slice(0, 40)).join(', ')}.`);
  if (typeof options.config !== 'object' || options.config === null) throw new TypeError('createSupervisor needs { config } (from loadConfig).');
  const logger = options.logger ?? silentLogger();
  const runtime = new RuntimeCell({ config: options.config, logger, ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}) });
  return Object.freeze({
    start: () => runtime.start(),
    stop: () => runtime.stop(),
    health: () => copy(runtime.supervisor.health()),
    campaigns: Object.freeze({
      list: () => runtime.call((s) => s.campaigns({ action: 'list' })) as Promise<Answer<{ campaigns: CampaignView[] }>>,
      get: (campaignId: string) => campaignDetail(runtime, campaignId),
      create: (campaign: NewCampaign, requestOptions?: RequestOptions) => createCampaign(runtime, campaign, requestOptions),
    }),
    campaign: (campaignId: string) => campaignHandle(runtime, campaignId),
    events: Object.freeze({ subscribe: (listener: (event: PublicEvent) => void) => subscribeEvents(runtime, listener) }),
  });
}

/** The internal supervisor and the life cycle the facade allows it (one start, one stop). */
class RuntimeCell {
  phase: Phase = 'new';
  readonly supervisor: Supervisor;

  constructor(readonly options: LibraryOptions & { logger: Logger }) {
    this.supervisor = buildSupervisor(options);
  }

  get logger(): Logger {
    return this.options.logger;
  }

  async start(): Promise<void> {
    if (this.phase !== 'new') throw new Error(`start() was already called (the supervisor is ${this.phase}).`);
    this.phase = 'starting';
    try {
      await this.supervisor.start();
      this.phase = 'running';
    } catch (error) {
      this.phase = 'stopped';
      throw error;
    }
  }

  async stop(): Promise<void> {
    if (this.phase !== 'running') {
      if (this.phase === 'new') this.phase = 'stopped';
      return;
    }
    this.phase = 'stopping';
    try {
      await this.supervisor.stop();
    } finally {
      this.phase = 'stopped';
    }
  }

  /** Runs one API call while the supervisor runs; its answer is copied out. */
  async call(work: (s: Supervisor) => Promise<Answer<unknown>>): Promise<Answer<unknown>> {
    if (this.phase !== 'running') return refused(this.phase === 'new' || this.phase === 'starting' ? 'The supervisor is not started.' : 'The supervisor is stopped.');
    return copy(await work(this.supervisor));
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The key, checked as the HTTP server checks the Idempotency-Key header. */
function keyOption(options: RequestOptions | undefined): { ok: true; value: { idempotencyKey?: string } } | { ok: false; error: Answer<never> } {
  if (options === undefined) return { ok: true, value: {} };
  if (!isPlainObject(options) || Object.keys(options).some((k) => k !== 'idempotencyKey')) return { ok: false, error: refused('The request options may only name idempotencyKey.') };
  const key = options.idempotencyKey;
  if (key === undefined) return { ok: true, value: {} };
  if (typeof key !== 'string' || !isValidIdempotencyKey(key)) return { ok: false, error: refused('idempotencyKey must be 1-255 printable ASCII characters.') };
  return { ok: true, value: { idempotencyKey: key } };
}

function campaignDetail(runtime: RuntimeCell, campaignId: string): Promise<Answer<CampaignDetail>> {
  return runtime.call((s) => s.campaigns({ action: 'get', campaign_id: campaignId })) as Promise<Answer<CampaignDetail>>;
}

async function createCampaign(runtime: RuntimeCell, campaign: NewCampaign, options: RequestOptions | undefined): Promise<Answer<{ campaign: CampaignView }>> {
  if (!isPlainObject(campaign)) return refused('The campaign must be a plain object.');
  if ('action' in campaign) return refused('Unknown field(s): action.');
  const key = keyOption(options);
  if (!key.ok) return key.error;
  // A copy: the schema then validates exactly the fields that will be used.
  const body = { ...copy(campaign), action: 'create' };
  return runtime.call((s) => s.campaigns(body, key.value)) as Promise<Answer<{ campaign: CampaignView }>>;
}

function campaignHandle(runtime: RuntimeCell, campaignId: string): CampaignHandle {
  if (typeof campaignId !== 'string') throw new TypeError('campaign(id) needs the campaign id, a string.');
  return Object.freeze({
    id: campaignId,
    view: () => campaignDetail(runtime, campaignId),
    request: <C extends CampaignCommand>(command: C, options?: RequestOptions) => request(runtime, campaignId, command, options) as Promise<CommandAnswer<C>>,
    subscribe: (listener: (view: CampaignView) => void) => subscribeCampaign(runtime, campaignId, listener),
  });
}

/** The same body the HTTP route `campaign_action` validates: the command plus this campaign's id. */
async function request(runtime: RuntimeCell, campaignId: string, command: CampaignCommand, options: RequestOptions | undefined): Promise<Answer<unknown>> {
  if (!isPlainObject(command)) return refused('The command must be a plain object with an action.');
  if ('campaign_id' in command) return refused('Unknown field(s): campaign_id (the handle names the campaign).');
  const key = keyOption(options);
  if (!key.ok) return key.error;
  const body = { ...copy(command), campaign_id: campaignId };
  return runtime.call((s) => s.campaignAction(body, key.value));
}

function checkListener(listener: unknown): asserts listener is (value: never) => void {
  if (typeof listener !== 'function') throw new TypeError('subscribe needs a listener function.');
}

/** Listeners run after the change, outside the store's update: a throwing or slow one cannot break a save. */
function deliver(runtime: RuntimeCell, notify: () => void): void {
  queueMicrotask(() => {
    try {
      notify();
    } catch (error) {
      runtime.logger.warn({ err: String(error) }, 'a library listener threw');
    }
  });
}

function subscribeEvents(runtime: RuntimeCell, listener: (event: PublicEvent) => void): Unsubscribe {
  checkListener(listener);
  const sub = runtime.supervisor.readModel.on('publicEventsAdded', (e) => {
    for (const event of e.events) deliver(runtime, () => listener(copy(event)));
  });
  return () => sub.unsubscribe();
}

function subscribeCampaign(runtime: RuntimeCell, campaignId: string, listener: (view: CampaignView) => void): Unsubscribe {
  checkListener(listener);
  const model = runtime.supervisor.readModel;
  const current = () => model.getSnapshot().context.campaigns.get(campaignId);
  const notify = () =>
    deliver(runtime, () => {
      const view = current();
      if (view) listener(copy(view));
    });
  const subs = [model.on('campaignChanged', (e) => e.campaignId === campaignId && notify()), model.on('campaignsReloaded', notify)];
  return () => {
    for (const sub of subs) sub.unsubscribe();
  };
}
