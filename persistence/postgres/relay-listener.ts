/**
 * One dedicated `pg.Client` holding LISTEN on a few channels, kept alive. Not a pool
 * connection: LISTEN belongs to a session, and a pool would hand that session to others and
 * drop it when idle. node-postgres does not re-LISTEN after a drop (brianc/node-postgres#967,
 * #3003 advise a periodic `SELECT 1` and reconnecting), so this does both: any error, end or
 * failed check discards the client and connects a new one with a bounded backoff; after each
 * (re)connect `onReady` runs, and the owner of this listener sweeps what a lost NOTIFY would
 * have told it.
 * @module
 */
import pg from 'pg';
import { describeError } from '../store-errors.js';
import { listenSql } from './relay-sql.js';

export interface ListenerOptions {
  /** The connection settings (the pool's, so the same server, user and search_path). */
  config: pg.ClientConfig;
  channels: readonly string[];
  onNotification(channel: string, payload: string): void;
  /** After LISTEN succeeded on a new connection (the first one and each reconnect). */
  onReady(reconnect: boolean): void;
  onError?: (message: string) => void;
  /** Period of the liveness `SELECT 1` (default 5 s). */
  checkEveryMs?: number;
  /** First pause before reconnecting, doubled per failed attempt (default 50 ms). */
  reconnectDelayMs?: number;
  /** Longest pause between two connection attempts (default 2 s). */
  maxBackoffMs?: number;
}

export interface ListenerStatus {
  listening: boolean;
  /** Backend pid of the LISTEN session (null while disconnected). */
  pid: number | null;
  /** Connections made after the first one. */
  reconnects: number;
}

export class RelayListener {
  private client: pg.Client | null = null;
  private pid: number | null = null;
  private reconnects = 0;
  private connections = 0;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private check: NodeJS.Timeout | null = null;
  private backoffMs: number;

  constructor(private readonly options: ListenerOptions) {
    this.backoffMs = options.reconnectDelayMs ?? 50;
  }

  /** Resolves after the first LISTEN, or rejects when the first connection fails. */
  async start(): Promise<void> {
    await this.connect();
    const every = this.options.checkEveryMs ?? 5_000;
    this.check = setInterval(() => void this.probe(), every);
    this.check.unref();
  }

  status(): ListenerStatus {
    return { listening: this.pid !== null, pid: this.pid, reconnects: this.reconnects };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.check) clearInterval(this.check);
    const client = this.client;
    this.client = null;
    this.pid = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ ...this.options.config, application_name: 'argus-supervisor-relay' });
    // Registered before connect: an error on an idle client must never become an uncaught
    // exception. Until LISTEN is up, a failure rejects the statement in flight, and the catch
    // below handles it; after that, `lost` does.
    let up = false;
    client.on('error', (error) => up && this.lost(client, `relay listener connection failed (${describeError(error)})`));
    client.on('end', () => up && this.lost(client, 'relay listener connection ended'));
    client.on('notification', (n) => {
      if (this.client === client && n.payload !== undefined) this.options.onNotification(n.channel, n.payload);
    });
    this.client = client;
    try {
      await client.connect();
      for (const channel of this.options.channels) await client.query(listenSql(channel));
      const pid = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      if (this.client !== client) throw new Error('relay listener closed while connecting');
      this.pid = pid.rows[0]!.pid;
      up = true;
    } catch (error) {
      if (this.client === client) this.client = null;
      await client.end().catch(() => undefined);
      throw error;
    }
    this.backoffMs = this.options.reconnectDelayMs ?? 50;
    const reconnect = this.connections++ > 0;
    if (reconnect) this.reconnects++;
    this.options.onReady(reconnect);
  }

  /** A half-open TCP connection says nothing; a query that fails or hangs (query_timeout) tells. */
  private async probe(): Promise<void> {
    const client = this.client;
    if (!client || this.pid === null) return;
    try {
      await client.query('SELECT 1');
    } catch (error) {
      this.lost(client, `relay listener check failed (${describeError(error)})`);
    }
  }

  private lost(client: pg.Client, why: string): void {
    if (this.closed || this.client !== client) return;
    this.client = null;
    this.pid = null;
    this.options.onError?.(`${why}; reconnecting`);
    void client.end().catch(() => undefined);
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.retry) return;
    const wait = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.options.maxBackoffMs ?? 2_000);
    this.retry = setTimeout(() => {
      this.retry = null;
      if (this.closed) return;
      this.connect().catch((error: unknown) => {
        this.options.onError?.(`relay listener could not reconnect (${describeError(error)}); retrying`);
        this.schedule();
      });
    }, wait);
    this.retry.unref();
  }
}
