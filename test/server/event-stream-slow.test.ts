/**
 * A client that stops reading the event stream: once its unsent output passes the bound, the
 * server lets go of the connection itself (socket and buffer), not just of the feed. A polite
 * `end()` would wait for the client to read what is buffered, so a client that never reads
 * would hold the socket and its buffer forever, outside the stream limit.
 */
import net from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerEventStream } from '../../server/event-stream.js';
import { createReadModel } from '../../services/api/read-model.js';
import { createScope, until } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

type ReadModel = ReturnType<typeof createReadModel>;

/** A raw client that sends the stream request and never reads (a net.Socket starts paused). */
async function openUnreadStream(port: number, feed: { listenerCount: number }): Promise<void> {
  const socket = scope.defer(net.connect(port, '127.0.0.1'), (s) => s.destroy());
  await new Promise<void>((ok) => socket.once('connect', () => ok()));
  socket.write('GET /api/plugins/argus_supervisor/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n');
  await until(() => feed.listenerCount === 1, 'the stream to open');
}

/** 16 MiB of public events: far more than the kernel's socket buffers take. */
function flood(readModel: ReadModel): void {
  const summary = 'x'.repeat(1024 * 1024);
  for (let i = 0; i < 16; i++) {
    readModel.trigger.publicEventsAppended({ events: [{ id: `a:${i}`, seq: i, kind: 'CRITICAL', campaign_id: 'a', at: 'now', summary, data: {} }] });
  }
}

describe('event stream, slow consumer', () => {
  it('a client that never reads is disconnected once the bound is passed', async () => {
    const readModel = createReadModel();
    const app = scope.defer(Fastify(), (a) => a.close());
    const feed = registerEventStream(app, { readModel, activeStates: () => [] }, { maxBufferedBytes: 64 * 1024 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as net.AddressInfo;
    const connections = () => new Promise<number>((ok, fail) => app.server.getConnections((e, n) => (e ? fail(e) : ok(n))));

    await openUnreadStream(port, feed);
    // What the kernel does not take stays in the server's buffer, past the bound.
    flood(readModel);
    expect(feed.listenerCount).toBe(0);
    await until(async () => (await connections()) === 0, 'the slow client to be disconnected');
  });

  it('the server closes promptly while a client that never reads has output buffered', async () => {
    const readModel = createReadModel();
    const app = Fastify();
    let closed = false;
    scope.defer(app, (a) => (closed ? undefined : a.close()));
    const feed = registerEventStream(app, { readModel, activeStates: () => [] }, { maxBufferedBytes: 256 * 1024 * 1024 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as net.AddressInfo;
    await openUnreadStream(port, feed);
    flood(readModel);
    expect(feed.listenerCount).toBe(1); // under this bound: still attached, output buffered
    const outcome = await Promise.race([app.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('still closing after 2 s'), 2000))]);
    closed = outcome === 'closed';
    expect(outcome).toBe('closed');
  });
});
