/**
 * `argus-supervisor act <campaign> <action> [--epoch N] [--text …] [--question-key K]
 * [--ttl S] [--idempotency-key K]`: one `campaign_action`, its body built from the flags as
 * docs/api.md lists them. `--text` is the action's words: `text` of answer and submit,
 * `instruction` of intervene, `reason` of cancel. A flag the action does not take, or a missing
 * one it needs, is a usage error (exit 2) before anything is sent.
 * @module
 */
import type { Command } from 'commander';
import { campaignsTable, cell } from './format.js';
import { clientCommand, connectionOptions, controllerId, positiveInt, printJson, runClient, usage, type OutputOptions } from './run.js';

type Flag = 'epoch' | 'text' | 'questionKey' | 'ttl';

/** Per action: the flags it needs, the flags it may take, and the body field `--text` fills. */
const ACTIONS: Record<string, { needs: Flag[]; may: Flag[]; text?: string }> = {
  observe: { needs: [], may: [] },
  pause: { needs: [], may: [] },
  resume: { needs: [], may: [] },
  close: { needs: [], may: [] },
  resolve_intent: { needs: [], may: [] },
  mission: { needs: [], may: [] },
  claim: { needs: [], may: ['ttl'] },
  release: { needs: ['epoch'], may: [] },
  submit: { needs: ['epoch', 'text'], may: [], text: 'text' },
  intervene: { needs: ['epoch', 'text'], may: [], text: 'instruction' },
  cancel: { needs: ['epoch', 'text'], may: [], text: 'reason' },
  answer: { needs: ['text'], may: ['questionKey'], text: 'text' },
};

const FLAG_NAMES: Record<Flag, string> = { epoch: '--epoch', text: '--text', questionKey: '--question-key', ttl: '--ttl' };

interface ActOptions extends OutputOptions {
  epoch?: string;
  text?: string;
  questionKey?: string;
  ttl?: string;
  idempotencyKey?: string;
}

/** The campaign_action body for these flags, or a usage error. */
export function actionBody(campaignId: string, action: string, opts: ActOptions): Record<string, unknown> {
  const spec = ACTIONS[action];
  if (!spec) usage(`unknown action ${cell(action, 40)}; one of ${Object.keys(ACTIONS).join(', ')}`);
  for (const flag of Object.keys(FLAG_NAMES) as Flag[]) {
    const given = opts[flag] !== undefined;
    if (spec.needs.includes(flag) && !given) usage(`${action} needs ${FLAG_NAMES[flag]}`);
    if (given && !spec.needs.includes(flag) && !spec.may.includes(flag)) usage(`${action} takes no ${FLAG_NAMES[flag]}`);
  }
  const body: Record<string, unknown> = { campaign_id: campaignId, action };
  const epoch = positiveInt('--epoch', opts.epoch);
  if (epoch !== undefined) body.epoch = epoch;
  const ttl = positiveInt('--ttl', opts.ttl, 1);
  if (ttl !== undefined) body.ttl_seconds = ttl;
  if (opts.text !== undefined && spec.text) body[spec.text] = opts.text;
  if (opts.questionKey !== undefined) body.question_key = opts.questionKey;
  return body;
}

export function registerAct(program: Command): void {
  connectionOptions(clientCommand(program.command('act').description(`Run one campaign action on a running serve: ${Object.keys(ACTIONS).join(', ')}.`)))
    .argument('<campaign>', 'campaign id')
    .argument('<action>', 'the action (see docs/api.md#actions)')
    .option('--epoch <n>', 'the lease epoch (release, submit, intervene, cancel)')
    .option('--text <text>', 'the words: answer/submit text, intervene instruction, cancel reason')
    .option('--question-key <key>', 'answer: the pending question it answers (refused if stale)')
    .option('--ttl <seconds>', 'claim: the lease TTL asked for')
    .option('--idempotency-key <key>', 'Idempotency-Key header: a retry with it never acts twice')
    .option('--wide', 'every column, however wide the lines get')
    .option('--json', 'print the API answer as JSON')
    .action((campaignId: string, action: string, opts: ActOptions) =>
      runClient(async (open) => {
        const body = actionBody(campaignId, action, opts);
        if (opts.idempotencyKey === '') usage('--idempotency-key must not be empty');
        const conn = await open();
        const answer = await conn.post('campaign_action', body, opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {});
        if (opts.json) return printJson(answer);
        const facts: string[] = [];
        if (answer.lease) facts.push(`lease epoch ${answer.lease.epoch} until ${answer.lease.expires_at}`);
        if (answer.outcome) facts.push(`outcome ${answer.outcome}`);
        if (answer.request_id) facts.push(`request ${answer.request_id}`);
        if (answer.task_id) facts.push(`task ${answer.task_id}`);
        if (answer.status) facts.push(`status ${answer.status}`);
        if (answer.changed !== undefined) facts.push(answer.changed ? `changed, ${(answer.events ?? []).length} event(s)` : 'unchanged');
        if (answer.read_error) facts.push(`read failed: ${answer.read_error.code}`);
        if (answer.mission) facts.push(`mission project ${answer.mission.project_id}`);
        const head = `${action} ${cell(campaignId)}: ok${facts.length ? ` (${facts.map((f) => cell(f, 120)).join('; ')})` : ''}`;
        return `${head}\n${campaignsTable([answer.campaign], await controllerId(conn), { wide: opts.wide === true })}`;
      }, opts),
    );
}
