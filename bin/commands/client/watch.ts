/**
 * `campaigns list --watch`: the table, redrawn each time the event stream brings a change that
 * alters it (like `kubectl get -w`). The stream is opened first and the list read after its
 * `hello`, so no change falls between the two. A change the table does not show (a read that
 * only moved `last_read_at`) redraws nothing. On a terminal each redraw replaces the screen;
 * piped, each is a block headed `-- <time>  <n> campaigns`, so a reader (or a test) counts them.
 * @module
 */
import { API_PREFIX, ClientError, answerOf, type Connection } from './connection.js';
import { parseFrames } from './events.js';
import { campaignsTable, type TableStyle } from './format.js';
import { applyListFilter, limitNote, type ListFilter } from './list-filter.js';

type View = Record<string, any>;

export interface WatchOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

export async function watchList(conn: Connection, filter: ListFilter, style: TableStyle, holder: string | null, out: WatchOutput = process.stdout): Promise<never> {
  process.once('SIGINT', () => process.exit(0));
  const views = new Map<string, View>();
  let last: string | null = null;
  const draw = () => {
    const { shown, matched } = applyListFilter([...views.values()], filter);
    const note = limitNote(shown.length, matched);
    const text = `${campaignsTable(shown, holder, style)}${note ? `\n${note}` : ''}`;
    if (text === last) return;
    last = text;
    const head = `-- ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}  ${matched} campaign${matched === 1 ? '' : 's'}  (Ctrl-C stops)`;
    // Home and clear, on a terminal only: piped output keeps every redraw.
    out.write(`${out.isTTY ? '\u001b[H\u001b[2J' : ''}${head}\n${text}\n${out.isTTY ? '' : '\n'}`);
  };
  // A key-opened stream ends after its lifetime with `event: reconnect` (docs/api.md): connect
  // again and list again after the new hello, since campaign frames are not replayed.
  for (;;) {
    const res = await conn.get(`${API_PREFIX}/events`);
    if (res.statusCode !== 200) {
      await answerOf(res, conn.target);
      throw new ClientError('invalid_response', `${conn.target.label} answered HTTP ${res.statusCode} to the event stream`);
    }
    res.setEncoding('utf8');
    let listed = false;
    let reconnect = false;
    for await (const frame of parseFrames(res)) {
      if (frame.event === 'hello' && !listed) {
        listed = true;
        const answer = await conn.post('campaigns', { action: 'list' });
        views.clear();
        for (const c of answer.campaigns as View[]) views.set(String(c.campaign_id), c);
        draw();
      } else if (frame.event === 'campaign' && listed && frame.data?.campaign?.campaign_id) {
        views.set(String(frame.data.campaign.campaign_id), frame.data.campaign as View);
        draw();
      } else if (frame.event === 'reconnect') {
        reconnect = true;
      }
    }
    if (!reconnect) throw new ClientError('stream_closed', `${conn.target.label} closed the event stream`);
  }
}
