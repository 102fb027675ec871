/**
 * A small server-sent-events reader over node:http for the tests: frames as they arrive
 * (`{event, data, comment}`), a bounded wait for one that matches, and an explicit close.
 * Also works over a Unix socket (`socketPath`).
 */
import http from 'node:http';

export interface SseFrame {
  event: string | null;
  data: string | null;
  comment: string | null;
  /** The frame's `id:` line, if any (the server gives public frames their event id). */
  id?: string | null;
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  frames: SseFrame[];
  /** The body when the answer was not a stream (an error). */
  body: Promise<string>;
  /** Resolves with the first frame (from the start) that matches, or rejects after `ms`. */
  next(match: (f: SseFrame) => boolean, ms?: number): Promise<SseFrame>;
  close(): void;
  closed: Promise<void>;
}

export function openSse(url: string, headers: Record<string, string> = {}, socketPath?: string): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers }, ...(socketPath ? { socketPath } : {}) }, (res) => {
      const frames: SseFrame[] = [];
      const waiters = new Set<() => void>();
      let buffered = '';
      let text = '';
      // 'close' too: a stream the test destroyed never ends, its text so far is the body.
      const body = new Promise<string>((done) => {
        res.on('end', () => done(text));
        res.once('close', () => done(text));
      });
      const closed = new Promise<void>((done) => res.once('close', () => done()));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        buffered += chunk;
        let at: number;
        while ((at = buffered.indexOf('\n\n')) >= 0) {
          const block = buffered.slice(0, at);
          buffered = buffered.slice(at + 2);
          const frame: SseFrame = { event: null, data: null, comment: null };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comment = line.slice(1).trim();
            else if (line.startsWith('id: ')) frame.id = line.slice(4);
            else if (line.startsWith('event: ')) frame.event = line.slice(7);
            else if (line.startsWith('data: ')) frame.data = frame.data === null ? line.slice(6) : `${frame.data}\n${line.slice(6)}`;
          }
          frames.push(frame);
          for (const w of [...waiters]) w();
        }
      });
      res.on('error', () => undefined);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        frames,
        body,
        closed,
        close: () => req.destroy(),
        next: (match, ms = 3000) =>
          new Promise<SseFrame>((ok, fail) => {
            const check = () => {
              const found = frames.find(match);
              if (!found) return;
              waiters.delete(check);
              clearTimeout(timer);
              ok(found);
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`no matching frame within ${ms} ms; got ${frames.map((f) => f.event ?? `:${f.comment}`).join(', ')}`));
            }, ms);
            waiters.add(check);
            check();
          }),
      });
    });
    req.on('error', reject);
  });
}

export const dataOf = <T = Record<string, any>>(f: SseFrame): T => JSON.parse(f.data ?? 'null') as T;
