/**
 * The shapes the operator API accepts, validated with zod at the edge of the services layer
 * (the HTTP server and an embedding host both go through here). Unknown keys are refused so a
 * typo such as `epcoh` is an error, not a silently ignored field.
 * @module
 */
import { z } from 'zod';
import { operatorTextProblem } from '../../adapters/a2a/sanitize.js';
import { isValidCampaignId } from '../../persistence/campaign-id.js';

const campaignId = z
  .string()
  .refine(isValidCampaignId, 'campaign_id may use letters, digits, ".", "_" and "-" (1-128, no leading dot)');
/**
 * Operator free text: the remote-text character rule (adapters/a2a/sanitize.ts), refused not
 * stripped, and checked before the trim (which would silently drop a leading BOM).
 * `multiline` fields come from a textarea and may hold tabs and line breaks.
 */
const text = (max: number, opts: { multiline?: boolean } = {}) =>
  z
    .string()
    .superRefine((value, ctx) => {
      const problem = operatorTextProblem(value, opts);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .trim()
    .min(1)
    .max(max);
const multiline = { multiline: true } as const;
const epoch = z.number().int().nonnegative();

export const campaignsBodySchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('list') }),
  z.strictObject({ action: z.literal('get'), campaign_id: campaignId }),
  // The campaign's state changes, newest last (persistence/state-history.ts).
  z.strictObject({ action: z.literal('history'), campaign_id: campaignId }),
  z.strictObject({
    action: z.literal('create'),
    campaign_id: campaignId,
    objective: text(4000),
    remote_task_id: z.string().trim().min(1).max(256).regex(/^[\x21-\x7e]+$/, 'remote_task_id must be printable ASCII').optional(),
    max_attempts: z.number().int().min(1).max(20).optional(),
  }),
]);
export type CampaignsBody = z.infer<typeof campaignsBodySchema>;

export const campaignActionSchema = z.discriminatedUnion('action', [
  z.strictObject({ campaign_id: campaignId, action: z.literal('observe') }),
  z.strictObject({ campaign_id: campaignId, action: z.literal('pause') }),
  z.strictObject({ campaign_id: campaignId, action: z.literal('resume') }),
  z.strictObject({ campaign_id: campaignId, action: z.literal('close') }),
  // `question_key` names the question answered (the view's `pending_question.key`); a stale one is refused.
  z.strictObject({ campaign_id: campaignId, action: z.literal('answer'), text: text(4000, multiline), question_key: z.string().min(1).max(512).optional() }),
  z.strictObject({ campaign_id: campaignId, action: z.literal('claim'), ttl_seconds: z.number().int().min(60).max(3600).optional() }),
  z.strictObject({ campaign_id: campaignId, action: z.literal('release'), epoch }),
  z.strictObject({ campaign_id: campaignId, action: z.literal('submit'), epoch, text: text(8000, multiline) }),
  z.strictObject({ campaign_id: campaignId, action: z.literal('intervene'), epoch, instruction: text(8000, multiline) }),
  z.strictObject({ campaign_id: campaignId, action: z.literal('cancel'), epoch, reason: text(2000, multiline) }),
  z.strictObject({ campaign_id: campaignId, action: z.literal('resolve_intent') }),
  // Bind (or re-attach) the campaign's Argus project: decisions need a live binding.
  z.strictObject({ campaign_id: campaignId, action: z.literal('mission') }),
]);
export type CampaignActionBody = z.infer<typeof campaignActionSchema>;

/** One sentence naming the first problem; no value from the request is echoed. */
export function describeIssues(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'The request body is invalid.';
  const where = issue.path.length ? issue.path.join('.') : 'body';
  if (issue.code === 'invalid_union' || (issue.code === 'invalid_value' && where === 'action')) {
    return `${where}: unknown or missing action.`;
  }
  if (issue.code === 'unrecognized_keys') return `Unknown field(s): ${issue.keys.map((k) => k.slice(0, 40)).join(', ')}.`;
  return `${where}: ${issue.message}.`;
}
