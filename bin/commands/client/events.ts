/**
 * `argus-supervisor events [--follow] [--campaign ID] [--json]`: the public events the
 * supervisor keeps (without --follow), or the live event stream (`GET .../events`) until
 * interrupted: one line per campaign change (state, attention, stage, lease, the chart's active
 * leaf states) or public event. `--json` prints each frame as one JSON line `{event, data}`.
 * The stream ending from the server's side is `stream_closed` (exit 1); Ctrl-C exits 0. An
 * unknown `--campaign` is `campaign_not_found` (exit 1), asked of the API before anything else.
 * @module
 */
import type { Command } from 'commander';
import { isValidCampaignId } from '../../../persistence/campaign-id.js';
import { API_PREFIX, ClientError, answerOf, type Connection } from './connection.js';
import { cell, eventLine, jsonText, lease, leafStates, terminalSafe } from './format.js';
import { clientCommand, connectionOptions, controllerId, runClient, usage, type OutputOptions } from './run.js';

interface EventsOptions extends OutputOptions {
  follow?: boolean;
  campaign?: string;
}

export function registerEvents(program: Command): void {
  connectionOptions(clientCommand(program.command('events').description('Public events; with --follow, the live stream of changes and events.')))
    .option('--follow', 'stay connected and print each change as it happens')
    .option('--campaign <id>', 'only this campaign')
    .option('--json', 'one JSON object per line')
    .action((opts: EventsOptions) =>
      runClient(async (open) => {
        if (opts.campaign !== undefined && !isValidCampaignId(opts.campaign)) usage('--campaign must be a campaign id');
        const conn = await open();
        // An unknown campaign is an error, not "No events." (the API answers campaign_not_found).
        if (opts.campaign !== undefined) await conn.post('campaigns', { action: 'get', campaign_id: opts.campaign });
        if (!opts.follow) {
          const status = await conn.post('status', {});
          const events = (status.events as Record<string, any>[]).filter((e) => opts.campaign === undefined || e.campaign_id === opts.campaign);
          if (opts.json) return events.map((e) => jsonText(e)).join('\n') || undefined;
          return events.length ? events.map(eventLine).join('\n') : 'No events.';
        }
        await follow(conn, opts);
        return undefined;
      }, opts),
    );
}

async function follow(conn: Connection, opts: EventsOptions): Promise<void> {
  const query = opts.campaign !== undefined ? `?campaign_id=${encodeURIComponent(opts.campaign)}` : '';
  process.once('SIGINT', () => process.exit(0));
  const print = (line: string) => process.stdout.write(`${terminalSafe(line)}\n`);
  // A read that changed nothing but `last_read_at` repeats the line: a person sees it once.
  const lastLine = new Map<string, string>();
  let holder: string | null | undefined;
  // A key-opened stream ends after its lifetime with `event: reconnect`: connect again, and the
  // server resends the public events after the last id seen (docs/api.md).
  let lastEventId: string | null = null;
  for (let connection = 0; ; connection++) {
    const res = await conn.get(`${API_PREFIX}/events${query}`, lastEventId ? { 'last-event-id': lastEventId } : {});
    if (res.statusCode !== 200) {
      await answerOf(res, conn.target);
      throw new ClientError('invalid_response', `${conn.target.label} answered HTTP ${res.statusCode} to the event stream`);
    }
    holder ??= await controllerId(conn);
    res.setEncoding('utf8');
    let reconnect = false;
    for await (const frame of parseFrames(res)) {
      if (frame.id) lastEventId = frame.id;
      if (frame.event === 'reconnect') reconnect = true;
      if (frame.event === 'reconnect' || (frame.event === 'hello' && connection > 0)) continue;
      if (opts.json) {
        print(jsonText({ event: frame.event, data: frame.data }));
        continue;
      }
      const line = humanLine(frame, conn.target.label, holder ?? null);
      if (frame.event === 'campaign') {
        const id = String(frame.data?.campaign?.campaign_id);
        if (lastLine.get(id) === line) continue;
        lastLine.set(id, line);
      }
      print(frame.event === 'campaign' ? `${new Date().toISOString()}  ${line}` : line);
    }
    if (!reconnect) throw new ClientError('stream_closed', `${conn.target.label} closed the event stream`);
  }
}

/** The frames of a server-sent event stream (keepalive comments skipped), as they arrive. */
export async function* parseFrames(stream: AsyncIterable<unknown>): AsyncGenerator<{ event: string; data: any; id: string | null }> {
  let buffered = '';
  for await (const chunk of stream) {
    buffered += String(chunk);
    let at: number;
    while ((at = buffered.indexOf('\n\n')) >= 0) {
      const frame = parseFrame(buffered.slice(0, at));
      buffered = buffered.slice(at + 2);
      if (frame) yield frame;
    }
  }
}

function parseFrame(block: string): { event: string; data: any; id: string | null } | null {
  let event: string | null = null;
  let id: string | null = null;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
    else if (line.startsWith('id: ')) id = line.slice(4);
  }
  if (event === null) return null; // a keepalive comment
  try {
    return { event, data: JSON.parse(data.join('\n')), id };
  } catch {
    return { event, data: null, id };
  }
}

function humanLine(frame: { event: string; data: any }, label: string, holder: string | null): string {
  const d = frame.data ?? {};
  if (frame.event === 'hello') return `following ${label} (revision ${d.revision}); Ctrl-C stops`;
  if (frame.event === 'public') return eventLine(d);
  if (frame.event === 'campaign') {
    const c = d.campaign ?? {};
    const stage = c.remote?.stage ? ` stage=${cell(c.remote.stage, 24)}` : '';
    const pending = c.pending_question ? ` question=${cell(c.pending_question.text, 60)}` : '';
    return `${cell(c.campaign_id, 40)}  campaign  state=${cell(c.state)} attention=${cell(c.attention)}${stage} lease=${cell(lease(c, holder), 60).replace(/ /g, '_')}${pending} chart=${leafStates(d.active ?? []).join(',')}`;
  }
  return `${new Date().toISOString()}  ${cell(frame.event)}`;
}
