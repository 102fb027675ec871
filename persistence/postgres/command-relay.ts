/**
 * Any replica answers any campaign (issue 22, part 5): a command for a campaign another replica
 * owns goes to its owner THROUGH POSTGRESQL, never replica-to-replica HTTP.
 *
 * - `send` (any replica): finds the live owner (`campaign_owner`: holder, fence, unexpired),
 *   inserts a `campaign_commands` row (target, fence, request, deadline) and NOTIFYs the
 *   owner's channel with the row id only (the request stays in the row: a payload must be
 *   < 8000 bytes, and channels are readable by any session of the database). It waits for the
 *   answer NOTIFY on its own channel, polling the row as a fallback, at most `timeoutMs`; then
 *   marks the row abandoned and answers `owner_unavailable`.
 * - The owner claims a row with one conditional UPDATE (unclaimed, not abandoned, deadline not
 *   passed), so a duplicate NOTIFY, a sweep, or an owner waking after the sender gave up never
 *   runs a command twice or late: at most once. It refuses (`owner_changed`, the command did
 *   not run) a row whose fence is not the fence it holds now: the row was meant for an earlier
 *   or later tenure of the campaign.
 * - Idempotency: the request (with its Idempotency-Key) is passed unchanged and the relay keeps
 *   no key of its own. The owner's request gate enforces the contract against the idempotency
 *   records in the campaign document, by key digest and request digest. So the same key sent
 *   through two replicas becomes two rows, but both reach the one owner's gate: the first runs,
 *   the second gets the stored answer (or `mutation_in_progress`, `idempotency_key_reused`),
 *   exactly as on one process. After `owner_unavailable` a client retries with the same key;
 *   if the owner had started the command, the retry gets its recorded answer, never a rerun.
 * - Public events: `publish` NOTIFYs one installation-wide channel with a small notice
 *   (relay-events.ts): readers fetch the events from the shared store (the campaign document's
 *   outbox), so no `campaign_events` table. Call it after the document write committed.
 *   After a listener reconnect, event listeners get `{ kind: 'gap' }`.
 * @module
 */
import { isValidCampaignId } from '../campaign-id.js';
import { describeError } from '../store-errors.js';
import { decodeEventsNotice, encodeEventsNotice, originTag, type EventsNotice } from './relay-events.js';
import { DEFAULT_MAX_REQUEST_BYTES, MAX_TIMEOUT_MS, decode, refuse, type CommandRelay, type CommandRelayOptions, type RelayResult, type Stored } from './relay-contract.js';
import { RelayListener, type ListenerStatus } from './relay-listener.js';
import * as sql from './relay-sql.js';

export { DEFAULT_MAX_REQUEST_BYTES, type CommandRelay, type CommandRelayOptions, type EventsNotice, type RelayRefusalCode, type RelayResult } from './relay-contract.js';

export async function openCommandRelay<Req, Ans>(options: CommandRelayOptions<Req, Ans>): Promise<CommandRelay<Req, Ans>> {
  const relay = new PgCommandRelay(options);
  await relay.start();
  return relay;
}

class PgCommandRelay<Req, Ans> implements CommandRelay<Req, Ans> {
  private readonly mine: string;
  private readonly events: string;
  private readonly originTag: string;
  private readonly listen: RelayListener;
  /** Commands this replica sent and waits for: id → wake. */
  private readonly waiting = new Map<string, () => void>();
  /** Answer notices that came before their sender registered (bounded). */
  private readonly early = new Set<string>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly eventListeners = new Set<(notice: EventsNotice) => void>();
  private closed = false;

  constructor(private readonly options: CommandRelayOptions<Req, Ans>) {
    const { db, replicaId } = options;
    this.mine = sql.commandChannel(db.schema, replicaId);
    this.events = sql.eventsChannel(db.schema);
    this.originTag = originTag(replicaId);
    // The pool's own settings: same server, credentials, search_path and timeouts.
    const { connectionString, host, port, user, password, database, ssl, options: pgOptions, statement_timeout, query_timeout, keepAlive } = db.pool.options;
    this.listen = new RelayListener({
      config: { connectionString, host, port, user, password, database, ssl, options: pgOptions, statement_timeout, query_timeout, keepAlive, connectionTimeoutMillis: 5_000 },
      channels: [this.mine, this.events],
      onNotification: (channel, payload) => this.heard(channel, payload),
      onReady: (reconnect) => this.ready(reconnect),
      onError: options.onError,
      checkEveryMs: options.listenerCheckMs,
      reconnectDelayMs: options.reconnectDelayMs,
    });
  }

  start(): Promise<void> {
    return this.listen.start();
  }

  async send(campaignId: string, request: Req, { timeoutMs }: { timeoutMs: number }): Promise<RelayResult<Ans>> {
    if (!isValidCampaignId(campaignId)) return refuse('invalid_campaign_id', 'campaign id must match [A-Za-z0-9._-]{1,128} without a leading dot');
    if (!(Number.isInteger(timeoutMs) && timeoutMs > 0 && timeoutMs <= MAX_TIMEOUT_MS)) return refuse('command_invalid', `timeoutMs must be an integer in 1..${MAX_TIMEOUT_MS}`);
    let text: string | undefined;
    try {
      text = JSON.stringify(request);
    } catch {
      text = undefined;
    }
    if (typeof text !== 'string') return refuse('command_invalid', 'the command is not JSON-serialisable');
    const max = this.options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    if (Buffer.byteLength(text, 'utf8') > max) return refuse('command_too_large', `the command exceeds ${max} bytes`);
    if (this.closed) return refuse('owner_unavailable', 'this replica is shutting down; retry with the same Idempotency-Key');
    const deadline = Date.now() + timeoutMs;
    let id: string;
    try {
      const owner = (await this.options.db.pool.query<{ holder: string; fence: string }>(sql.OWNER_SQL, [campaignId])).rows[0];
      if (!owner) return refuse('owner_unavailable', `no live replica owns campaign ${campaignId} now; retry with the same Idempotency-Key`);
      const channel = sql.commandChannel(this.options.db.schema, owner.holder);
      const args = [campaignId, owner.holder, owner.fence, this.options.replicaId, text, Math.max(1, deadline - Date.now()), channel];
      id = (await this.options.db.pool.query<{ id: string }>(sql.SEND_SQL, args)).rows[0]!.id;
    } catch (error) {
      return refuse('owner_unavailable', `the command for campaign ${campaignId} could not be sent (${describeError(error)})`);
    }
    return this.await(id, campaignId, deadline);
  }

  /** Waits for the row's answer: woken by its NOTIFY, or reading it every pollEveryMs; bounded by the deadline. */
  private async await(id: string, campaignId: string, deadline: number): Promise<RelayResult<Ans>> {
    const pollMs = this.options.pollEveryMs ?? 500;
    let woken = this.early.delete(id);
    try {
      while (!this.closed && Date.now() < deadline) {
        if (!woken) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.min(pollMs, Math.max(1, deadline - Date.now())));
            this.waiting.set(id, () => {
              clearTimeout(timer);
              resolve();
            });
          });
        }
        woken = false;
        const row = await this.read(id);
        if (row) return row;
      }
    } finally {
      this.waiting.delete(id);
    }
    return this.abandon(id, campaignId);
  }

  private async read(id: string): Promise<RelayResult<Ans> | null> {
    try {
      const row = (await this.options.db.pool.query<{ answer: string | null }>(sql.READ_SQL, [id])).rows[0];
      return row?.answer != null ? decode<Ans>(row.answer) : null;
    } catch (error) {
      this.options.onError?.(`relay could not read command ${id} (${describeError(error)}); polling again`);
      return null;
    }
  }

  private async abandon(id: string, campaignId: string): Promise<RelayResult<Ans>> {
    try {
      const gaveUp = (await this.options.db.pool.query<{ claimed: boolean }>(sql.ABANDON_SQL, [id])).rows[0];
      if (!gaveUp) return (await this.read(id)) ?? refuse('owner_unavailable', `the answer for campaign ${campaignId} could not be read`);
      const why = this.closed ? 'this replica shut down before the owner of campaign' : 'the owner of campaign';
      const started = gaveUp.claimed ? ' after it started; its outcome is unknown' : '; it will not run';
      return refuse('owner_unavailable', `${why} ${campaignId} did not answer${this.closed ? '' : ' in time'}${started}; retry with the same Idempotency-Key`);
    } catch (error) {
      // The deadline in the row still stops a late claim.
      return refuse('owner_unavailable', `the owner of campaign ${campaignId} did not answer in time (${describeError(error)})`);
    }
  }

  private heard(channel: string, payload: string): void {
    if (channel === this.events) return this.heardEvents(payload);
    if (channel !== this.mine || !/^[ac][0-9]{1,19}$/.test(payload)) return;
    const id = payload.slice(1);
    if (payload[0] === 'c') return void this.run(id);
    const wake = this.waiting.get(id);
    if (wake) return wake();
    this.early.add(id);
    if (this.early.size > 1_000) this.early.delete(this.early.values().next().value!);
  }

  /** Owner side: claim once, check the fence, run, answer. Concurrent notices of one id share one run. */
  private run(id: string): Promise<void> {
    const running = this.running.get(id);
    if (running) return running;
    const run = this.execute(id).finally(() => this.running.delete(id));
    this.running.set(id, run);
    return run;
  }

  private async execute(id: string): Promise<void> {
    if (this.closed) return;
    const { db, replicaId } = this.options;
    let row: { campaign_id: string; fence: string; sender_replica: string; request: string } | undefined;
    try {
      row = (await db.pool.query(sql.CLAIM_SQL, [id, replicaId])).rows[0];
    } catch (error) {
      this.options.onError?.(`relay could not claim command ${id} (${describeError(error)}); the sender's deadline bounds the wait, a sweep after a reconnect retries it`);
      return;
    }
    if (!row) return; // answered, claimed, abandoned, expired or not ours: nothing to do.
    const held = this.options.fenceFor(row.campaign_id);
    let stored: Stored;
    if (held === null || String(held) !== row.fence) {
      const now = held === null ? 'holds no right to it now' : `holds fence ${held} now`;
      stored = { kind: 'refused', code: 'owner_changed', message: `the command for campaign ${row.campaign_id} was addressed to fence ${row.fence}; replica ${replicaId} ${now}; it did not run` };
    } else {
      try {
        stored = { kind: 'answer', answer: await this.options.onCommand(row.campaign_id, JSON.parse(row.request) as Req) };
      } catch (error) {
        this.options.onError?.(`relayed command ${id} for campaign ${row.campaign_id} failed (${describeError(error)})`);
        stored = { kind: 'refused', code: 'owner_failed', message: `the owner of campaign ${row.campaign_id} failed while running the command` };
      }
    }
    await this.answer(id, stored, sql.commandChannel(db.schema, row.sender_replica));
  }

  /** Bounded retries: the command ran, so its answer is worth a second try (the sender polls). */
  private async answer(id: string, stored: Stored, channel: string): Promise<void> {
    let text: string;
    try {
      text = JSON.stringify(stored);
    } catch {
      text = JSON.stringify({ kind: 'refused', code: 'owner_failed', message: 'the owner produced an answer that is not JSON' } satisfies Stored);
    }
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        await this.options.db.pool.query(sql.ANSWER_SQL, [id, text, channel]);
        return;
      } catch (error) {
        this.options.onError?.(`relay could not record the answer of command ${id} (attempt ${attempt}: ${describeError(error)})`);
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }

  /** After each (re)connect: nothing addressed to me or answered to me may wait on a lost NOTIFY. */
  private ready(reconnect: boolean): void {
    void this.options.db.pool
      .query<{ id: string }>(sql.PENDING_SQL, [this.options.replicaId])
      .then((r) => r.rows.forEach((row) => void this.run(row.id)))
      .catch((error: unknown) => this.options.onError?.(`relay sweep failed (${describeError(error)}); senders' deadlines bound the loss`));
    if (!reconnect) return;
    for (const wake of this.waiting.values()) wake();
    for (const listener of this.eventListeners) listener({ kind: 'gap' });
  }

  async publish(campaignId: string, events: readonly { seq: number }[]): Promise<void> {
    const payload = encodeEventsNotice(campaignId, events, this.originTag);
    if (payload !== null) await this.options.db.pool.query('SELECT pg_notify($1, $2)', [this.events, payload]);
  }

  private heardEvents(payload: string): void {
    const notice = decodeEventsNotice(payload, this.originTag);
    if (notice) for (const listener of this.eventListeners) listener(notice);
  }

  onEvents(listener: (notice: EventsNotice) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  async prune(olderThanMs: number): Promise<number> {
    const r = await this.options.db.pool.query(sql.PRUNE_SQL, [Math.max(0, Math.min(2_000_000_000, Math.floor(olderThanMs)))]);
    return r.rowCount ?? 0;
  }

  listener(): ListenerStatus {
    return this.listen.status();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const wake of this.waiting.values()) wake();
    await this.listen.close();
    // Commands already claimed here get their answer written, within a bound.
    await Promise.race([Promise.allSettled([...this.running.values()]), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  }
}
