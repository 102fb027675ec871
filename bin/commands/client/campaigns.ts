/**
 * `argus-supervisor campaigns list|get|history|create` (history: history.ts) and `argus-supervisor status`: the `campaigns`
 * and `status` routes of a running serve, as tables (or `--json`, the API's answer as is).
 * Tables fit 80 columns; `--wide` adds the lease holder and expiry and the pending question.
 * @module
 */
import type { Command } from 'commander';
import { campaignDetail, campaignsTable, cell, eventLine, type TableStyle } from './format.js';
import { applyListFilter, ATTENTIONS, HEALTHS, limitNote, parseListFilter, STATES } from './list-filter.js';
import { clientCommand, connectionOptions, controllerId, Painted, positiveInt, printJson, runClient, usage, useColour, type OutputOptions } from './run.js';
import { registerHistory } from './history.js';
import { watchList } from './watch.js';

interface ListOptions extends OutputOptions {
  state?: string;
  attention?: string;
  limit?: string;
  watch?: boolean;
}

const styleOf = (opts: OutputOptions): TableStyle => ({ wide: opts.wide === true, colour: useColour(process.stdout) });

export function registerCampaigns(program: Command): void {
  const campaigns = clientCommand(program.command('campaigns').description('List, show or create campaigns on a running serve (ARGUS_SUPERVISOR_URL).'));
  connectionOptions(clientCommand(campaigns.command('list').description('Every campaign, worst health first: state, attention, health, stage, lease (--wide: holder, expiry, pending question).')))
    .option('--state <states>', `only these states, comma-separated: ${STATES.join(', ')}`)
    .option('--attention <values>', `only these attentions, comma-separated: ${ATTENTIONS.join(', ')}`)
    .option('--health <values>', `only these healths, comma-separated: ${HEALTHS.join(', ')}`)
    .option('--limit <n>', 'at most this many rows (worst health first, then by campaign id)')
    .option('--watch', 'stay connected and redraw the table on every change it shows (Ctrl-C stops)')
    .option('--wide', 'every column, however wide the lines get')
    .option('--json', 'print the API answer as JSON (filtered and limited like the table)')
    .action((opts: ListOptions) =>
      runClient(async (open) => {
        const filter = parseListFilter(opts);
        if (opts.watch && opts.json) usage('--watch prints tables; it takes no --json (use events --follow --json)');
        const conn = await open();
        const style = styleOf(opts);
        if (opts.watch) return watchList(conn, filter, style, await controllerId(conn));
        const answer = await conn.post('campaigns', { action: 'list' });
        const { shown, matched } = applyListFilter(answer.campaigns as Record<string, any>[], filter);
        if (opts.json) return printJson({ ...answer, campaigns: shown });
        const note = limitNote(shown.length, matched);
        const text = `${campaignsTable(shown, await controllerId(conn), style)}${note ? `\n${note}` : ''}`;
        return style.colour ? new Painted(text) : text;
      }, opts),
    );
  connectionOptions(clientCommand(campaigns.command('get').description('One campaign in detail, its active chart states and recent events.')))
    .argument('<campaign>', 'campaign id')
    .option('--json', 'print the API answer as JSON')
    .action((id: string, opts: OutputOptions) =>
      runClient(async (open) => {
        const conn = await open();
        const answer = await conn.post('campaigns', { action: 'get', campaign_id: id });
        if (opts.json) return printJson(answer);
        return campaignDetail(answer.campaign, answer.events ?? [], answer.chart?.active ?? [], await controllerId(conn));
      }, opts),
    );
  registerHistory(campaigns);
  connectionOptions(clientCommand(campaigns.command('create').description('Create a campaign (an observer); --task attaches a remote task started elsewhere.')))
    .requiredOption('--id <campaign>', 'campaign id (letters, digits, . _ -)')
    .requiredOption('--objective <text>', 'what the campaign is for')
    .option('--task <remote-task-id>', 'attach this remote task (read once first)')
    .option('--max-attempts <n>', 'how many submits the campaign may make (1-20, default 3)')
    .option('--idempotency-key <key>', 'Idempotency-Key header: retrying with it never creates twice')
    .option('--wide', 'every column, however wide the lines get')
    .option('--json', 'print the API answer as JSON')
    .action((opts: OutputOptions & { id: string; objective: string; task?: string; maxAttempts?: string; idempotencyKey?: string }) =>
      runClient(async (open) => {
        const maxAttempts = positiveInt('--max-attempts', opts.maxAttempts, 1);
        const body = {
          action: 'create',
          campaign_id: opts.id,
          objective: opts.objective,
          ...(opts.task !== undefined ? { remote_task_id: opts.task } : {}),
          ...(maxAttempts !== undefined ? { max_attempts: maxAttempts } : {}),
        };
        if (opts.idempotencyKey === '') usage('--idempotency-key must not be empty');
        const conn = await open();
        const answer = await conn.post('campaigns', body, opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {});
        if (opts.json) return printJson(answer);
        return `created ${cell(answer.campaign.campaign_id)}\n${campaignsTable([answer.campaign], await controllerId(conn), { wide: opts.wide === true })}`;
      }, opts),
    );
}

export function registerStatus(program: Command): void {
  connectionOptions(clientCommand(program.command('status').description('The supervisor (health) and every campaign, from a running serve.')))
    .option('--wide', 'every column, however wide the lines get')
    .option('--json', 'print {health, campaigns, events} as JSON')
    .action((opts: OutputOptions) =>
      runClient(async (open) => {
        const conn = await open();
        const [health, status] = await Promise.all([conn.post('health', {}), conn.post('status', {})]);
        if (opts.json) return printJson({ ok: true, health, campaigns: status.campaigns, events: status.events });
        const remote = health.remote?.reachable === null ? 'not contacted yet' : health.remote?.reachable ? 'reachable' : 'unreachable';
        const tick = health.last_tick ? `${health.last_tick.at} (${health.last_tick.ticked} read, ${health.last_tick.errors} errors)` : 'none yet';
        const lines = [
          `supervisor  ${conn.target.label}  ${health.enabled ? 'enabled' : 'disabled (no remote is contacted)'}`,
          `remote      ${remote}${health.remote?.control_extension ? ', control extension' : ''}`,
          `key source  ${health.api_key_source}`,
          `controller  ${cell(health.controller_id)}  heartbeat ${health.heartbeat_seconds}s  last tick ${tick}`,
          `campaigns   ${health.campaigns?.total ?? 0} (${health.campaigns?.corrupt ?? 0} corrupt)`,
          '',
          campaignsTable(status.campaigns as Record<string, any>[], health.controller_id ?? null, { wide: opts.wide === true }),
        ];
        const events = (status.events as Record<string, any>[]).slice(-5);
        if (events.length) lines.push('', 'recent events:', ...events.map((e) => `  ${eventLine(e)}`));
        return lines.join('\n');
      }, opts),
    );
}
