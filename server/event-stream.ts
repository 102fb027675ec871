/**
 * `GET /api/plugins/argus_supervisor/events`: the live feed as server-sent events, for the page
 * (EventSource with its session) and the CLI (`events --follow`, with the key). Registered in
 * the protected scope, so it needs what every API route needs; GET, so no CSRF token.
 *
 * Frames: `event: hello` `{revision}` first; `event: campaign` `{campaign, active}` when a
 * campaign's view changes (coalesced by the feed); `event: public` with each public event;
 * `: keepalive` every 15 s so proxies and clients see a live connection. `?campaign_id=ID`
 * keeps one campaign's frames. A client that stops reading is dropped once 1 MiB is buffered
 * for it; a closed connection detaches at once (the feed detaches from the read model when the
 * last one goes). The server's close ends every stream first, so shutdown never waits on one.
 *
 * Limits, so that no one client holds them all: 64 streams in all, at most 32 opened with the
 * key (all key clients together) and 4 per page session. A stream opened with the key ends after
 * an hour with `event: reconnect`; the client connects again with `Last-Event-ID` (each public
 * frame carries its event id), and the public events it missed that the feed still holds are
 * sent first.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { isValidCampaignId } from '../persistence/campaign-id.js';
import { LiveFeed, type LiveFeedSource, type LiveMessage } from '../services/api/live-feed.js';
import type { PublicEventView } from '../services/api/read-model.js';

export interface EventStreamOptions {
  keepaliveMs?: number;
  /** At most this many open streams (default 64); one more answers 503 `too_many_streams`. */
  maxStreams?: number;
  /** A stream whose unsent output exceeds this is closed (default 1 MiB). */
  maxBufferedBytes?: number;
  coalesceMs?: number;
  /** At most this many streams opened with the key, all key clients together (default 32). */
  maxKeyStreams?: number;
  /** At most this many streams per page session (default 4). */
  maxSessionStreams?: number;
  /** A stream opened with the key ends after this long with `event: reconnect` (default 1 h). */
  keyStreamLifetimeMs?: number;
}

/** Who opened a stream: the key, or a page session (by its id). */
export type StreamOwner = { via: 'key' } | { via: 'session'; sessionId: string };

const tooMany = (message: string) => ({ ok: false, error: { code: 'too_many_streams', message } });

export function registerEventStream(
  scope: FastifyInstance,
  source: LiveFeedSource,
  options: EventStreamOptions = {},
  ownerOf: (req: IncomingMessage) => StreamOwner = () => ({ via: 'key' }),
): LiveFeed {
  const feed = new LiveFeed(source, options.coalesceMs !== undefined ? { coalesceMs: options.coalesceMs } : {});
  const keepaliveMs = options.keepaliveMs ?? 15_000;
  const maxStreams = options.maxStreams ?? 64;
  const maxKeyStreams = options.maxKeyStreams ?? 32;
  const maxSessionStreams = options.maxSessionStreams ?? 4;
  const keyLifetimeMs = options.keyStreamLifetimeMs ?? 3600_000;
  const maxBuffered = options.maxBufferedBytes ?? 1024 * 1024;
  const open = new Set<() => void>();
  /** Open streams per owner: `key`, or `session:<id>`. */
  const perOwner = new Map<string, number>();

  scope.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

  scope.get('/api/plugins/argus_supervisor/events', async (req, reply) => {
    const query = (req.query ?? {}) as Record<string, unknown>;
    const filter = query['campaign_id'];
    if (filter !== undefined && (typeof filter !== 'string' || !isValidCampaignId(filter))) {
      return reply.code(400).send({ ok: false, error: { code: 'invalid_request', message: 'campaign_id must be one valid campaign id.' } });
    }
    if (open.size >= maxStreams) return reply.code(503).send(tooMany(`At most ${maxStreams} event streams may be open at once.`));
    const owner = ownerOf(req.raw);
    const ownerKey = owner.via === 'key' ? 'key' : `session:${owner.sessionId}`;
    const ownerMax = owner.via === 'key' ? maxKeyStreams : maxSessionStreams;
    if ((perOwner.get(ownerKey) ?? 0) >= ownerMax) {
      return reply.code(503).send(tooMany(owner.via === 'key' ? `At most ${ownerMax} event streams may be open with the API key.` : `At most ${ownerMax} event streams may be open per page session.`));
    }
    // Fastify answers HEAD with this GET route: headers only, never a held-open stream.
    if (req.method === 'HEAD') return reply.code(200).header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-store').send();
    reply.hijack();
    const res: ServerResponse = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      // A reverse proxy (nginx) must not buffer a stream.
      'x-accel-buffering': 'no',
    });
    let ended = false;
    const write = (chunk: string) => {
      if (ended) return;
      res.write(chunk);
      if (res.writableLength > maxBuffered) {
        end();
        // end() would wait for the client to read what is buffered: one that never reads would
        // keep the socket and its buffer forever, outside the stream limit. Let go of both.
        res.destroy();
      }
    };
    // A public frame carries its event id, so a client can resume after it (Last-Event-ID).
    const frame = (m: LiveMessage) => `${m.kind === 'public' && SAFE_ID.test(m.data.id) ? `id: ${m.data.id}\n` : ''}event: ${m.kind}\ndata: ${m.json}\n\n`;
    const onMessage = (m: LiveMessage) => {
      if (filter !== undefined && m.campaignId !== filter) return;
      write(frame(m));
    };
    const unsubscribe = feed.subscribe(onMessage);
    const keepalive = setInterval(() => write(': keepalive\n\n'), keepaliveMs);
    keepalive.unref();
    // The key never expires, so its streams do: the client reconnects (and re-authenticates).
    const lifetime = owner.via === 'key' ? setTimeout(() => (write('event: reconnect\ndata: {}\n\n'), end()), keyLifetimeMs) : null;
    lifetime?.unref();
    perOwner.set(ownerKey, (perOwner.get(ownerKey) ?? 0) + 1);
    function end(): void {
      if (ended) return;
      ended = true;
      clearInterval(keepalive);
      if (lifetime) clearTimeout(lifetime);
      unsubscribe();
      open.delete(end);
      const left = (perOwner.get(ownerKey) ?? 1) - 1;
      if (left > 0) perOwner.set(ownerKey, left);
      else perOwner.delete(ownerKey);
      if (!res.writableEnded) res.end();
    }
    open.add(end);
    // The response's close, not the request's (a GET's request side closes once it is read).
    res.once('close', end);
    res.once('error', end);
    write(`event: hello\ndata: ${JSON.stringify({ revision: feed.revision() })}\n\n`);
    for (const event of missedSince(source, req.headers['last-event-id'], filter as string | undefined)) {
      write(frame({ kind: 'public', campaignId: event.campaign_id, data: event, json: JSON.stringify(event) }));
    }
  });
  return feed;
}

const SAFE_ID = /^[\x21-\x7e]{1,200}$/;

/** The public events after `lastId` that the feed still holds (none when it no longer holds that one). */
function missedSince(source: LiveFeedSource, lastId: string | string[] | undefined, filter: string | undefined): PublicEventView[] {
  if (typeof lastId !== 'string' || !SAFE_ID.test(lastId)) return [];
  const events = source.readModel.getSnapshot().context.events;
  const at = events.findIndex((e) => e.id === lastId);
  if (at < 0) return [];
  return events.slice(at + 1).filter((e) => filter === undefined || e.campaign_id === filter);
}
