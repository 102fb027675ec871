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
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { isValidCampaignId } from '../persistence/campaign-id.js';
import { LiveFeed, type LiveFeedSource, type LiveMessage } from '../services/api/live-feed.js';

export interface EventStreamOptions {
  keepaliveMs?: number;
  /** At most this many open streams (default 64); one more answers 503 `too_many_streams`. */
  maxStreams?: number;
  /** A stream whose unsent output exceeds this is closed (default 1 MiB). */
  maxBufferedBytes?: number;
  coalesceMs?: number;
}

export function registerEventStream(scope: FastifyInstance, source: LiveFeedSource, options: EventStreamOptions = {}): LiveFeed {
  const feed = new LiveFeed(source, options.coalesceMs !== undefined ? { coalesceMs: options.coalesceMs } : {});
  const keepaliveMs = options.keepaliveMs ?? 15_000;
  const maxStreams = options.maxStreams ?? 64;
  const maxBuffered = options.maxBufferedBytes ?? 1024 * 1024;
  const open = new Set<() => void>();

  scope.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

  scope.get('/api/plugins/argus_supervisor/events', async (req, reply) => {
    const query = (req.query ?? {}) as Record<string, unknown>;
    const filter = query['campaign_id'];
    if (filter !== undefined && (typeof filter !== 'string' || !isValidCampaignId(filter))) {
      return reply.code(400).send({ ok: false, error: { code: 'invalid_request', message: 'campaign_id must be one valid campaign id.' } });
    }
    if (open.size >= maxStreams) {
      return reply.code(503).send({ ok: false, error: { code: 'too_many_streams', message: `At most ${maxStreams} event streams may be open at once.` } });
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
    const onMessage = (m: LiveMessage) => {
      if (filter !== undefined && m.campaignId !== filter) return;
      write(`event: ${m.kind}\ndata: ${m.json}\n\n`);
    };
    const unsubscribe = feed.subscribe(onMessage);
    const keepalive = setInterval(() => write(': keepalive\n\n'), keepaliveMs);
    keepalive.unref();
    function end(): void {
      if (ended) return;
      ended = true;
      clearInterval(keepalive);
      unsubscribe();
      open.delete(end);
      if (!res.writableEnded) res.end();
    }
    open.add(end);
    // The response's close, not the request's (a GET's request side closes once it is read).
    res.once('close', end);
    res.once('error', end);
    write(`event: hello\ndata: ${JSON.stringify({ revision: feed.revision() })}\n\n`);
  });
  return feed;
}
