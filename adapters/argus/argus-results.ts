/**
 * What Argus's MCP tools return, as verified in microsoft/ArgusAgent@455da6cb
 * (argus_skill/plugin/service.py, webapi/manager_bridge.py, webapi/mission_items.py,
 * life/memory.py), and the narrow, sanitized values the rest of the project sees. Every
 * string from Argus is hostile: it leaves here sanitized and capped, ids only if they pass
 * the identifier rule, so nothing Argus writes can pose as one of our ids or carry a secret.
 * Schemas are loose about fields we do not read (Argus adds fields freely) and strict about
 * the ones we do.
 * @module
 */
import { EVENT_KEY_PATTERN } from './proposal-file.js';
import { z } from 'zod';
import { isRemoteIdentifier, remoteText, sanitizeRemoteText } from '../a2a/sanitize.js';

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

export type ArgusTurn =
  | { kind: 'chat'; reply: string }
  | { kind: 'task'; itemId: string | null }
  | { kind: 'pending_question'; itemId: string | null; question: string };

export interface ArgusStatus {
  daemonAlive: boolean;
  backlog: { id: string; title: string; status: string; pendingQuestion: string | null; outcome: string | null }[];
  pendingQuestions: { itemId: string; question: string }[];
  journal: { id: string; ts: string; kind: string; title: string; summary: string; itemId: string | null; eventKey: string | null }[];
}

/** Caps (UTF-16 units) for Argus text; each is enough to recognize, too little to flood a view or a prompt. */
export const ARGUS_TEXT_CAPS = {
  reply: 2_000,
  question: 1_000,
  title: 200,
  summary: 500,
  status: 64,
  kind: 64,
  outcome: 64,
  error: 200,
} as const;


export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const fail = <T = never>(code: string, message: string): Outcome<T> => ({ ok: false, error: { code, message } });

const okEnvelope = z.object({ ok: z.literal(true) }).loose();
const errorEnvelope = z.object({ ok: z.literal(false), error_code: z.string().optional(), error: z.string().optional() }).loose();

/**
 * The failure of a tool (`{ok:false, error_code, error}`): its code when it is a plain
 * identifier of ours to show, else `argus_error`; Argus's own sentence stays out of ours
 * except as a sanitized excerpt.
 */
export function toolFailure(raw: unknown, secrets: readonly string[]): Outcome<never> | null {
  const parsed = errorEnvelope.safeParse(raw);
  if (!parsed.success) return null;
  const code = parsed.data.error_code ?? '';
  const usable = /^[a-z][a-z0-9_]{0,63}$/.test(code) && isRemoteIdentifier(code, secrets);
  const detail = remoteText(parsed.data.error ?? null, secrets, ARGUS_TEXT_CAPS.error);
  return fail(usable ? code : 'argus_error', detail ? `Argus refused the call: ${detail}` : 'Argus refused the call.');
}

const identifier = (secrets: readonly string[]) => z.string().refine((s) => isRemoteIdentifier(s, secrets), 'not an identifier');

/** `argus_project_create` → `{ok, project: {sid: "s-<8 hex>", workdir, daemon, ...}}` (create_daemon's response). */
export function parseProjectCreate(raw: unknown, secrets: readonly string[]): Outcome<{ projectId: string }> {
  const schema = okEnvelope.extend({ project: z.object({ sid: identifier(secrets).optional(), id: identifier(secrets).optional() }).loose() });
  const parsed = schema.safeParse(raw);
  // Real Argus names it `sid`; `id` is accepted too (session rows elsewhere use `id`).
  const projectId = parsed.success ? (parsed.data.project.sid ?? parsed.data.project.id) : undefined;
  return projectId ? ok({ projectId }) : fail('argus_bad_result', 'Argus answered project creation without a usable project id.');
}

/**
 * `argus_message` results (service.message over manager_message):
 * - `chat` → `{reply}`;
 * - `task` → `{item: BacklogItem | null, daemon_alive, dispatch_state, ...}`: the dispatched
 *   item is `item.id` (null while the Planner sequences a continuous campaign);
 * - `pending_question` → the turn was read as an answer to a blocked item:
 *   `{answered_item_id, answer_intent, resolved, reply, item?}`. Resolved, Argus enqueued the
 *   continuation `item` and started its daemon: that is a dispatched task, so it maps to
 *   `task` with the continuation's id. Unresolved, `reply` is the Manager's clarifying
 *   question about `answered_item_id`;
 * - `pending_question_choice` (several items blocked) → a question with no item;
 * - `control`, `cancelled` (a steer/pause/abort reading of our text) settle with no proposal,
 *   as a chat does.
 */
export function parseMessage(raw: unknown, secrets: readonly string[]): Outcome<ArgusTurn> {
  const schema = okEnvelope.extend({
    kind: z.string(),
    reply: z.string().nullable().optional(),
    item: z.object({ id: identifier(secrets) }).loose().nullable().optional(),
    answered_item_id: identifier(secrets).nullable().optional(),
    resolved: z.boolean().optional(),
    error: z.string().optional(),
  });
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return fail('argus_bad_result', 'Argus answered the turn in a shape we do not read.');
  const r = parsed.data;
  const reply = sanitizeRemoteText(r.reply ?? '', secrets, ARGUS_TEXT_CAPS.reply);
  switch (r.kind) {
    case 'chat':
    case 'control':
    case 'cancelled':
      return ok({ kind: 'chat', reply });
    case 'task':
      return ok({ kind: 'task', itemId: r.item?.id ?? null });
    case 'pending_question':
      if (r.resolved === true) return ok({ kind: 'task', itemId: r.item?.id ?? null });
      return ok({
        kind: 'pending_question',
        itemId: r.answered_item_id ?? null,
        question: sanitizeRemoteText(r.reply || r.error || '', secrets, ARGUS_TEXT_CAPS.question),
      });
    case 'pending_question_choice':
      return ok({ kind: 'pending_question', itemId: null, question: sanitizeRemoteText(r.reply ?? '', secrets, ARGUS_TEXT_CAPS.question) });
    default:
      return fail('argus_bad_result', 'Argus answered the turn with a kind we do not know.');
  }
}

/** Epoch seconds written as a decimal string (what a float becomes once something stringifies it). */
const EPOCH_SECONDS = /^\d{1,12}(\.\d{1,9})?$/;
/** ISO-8601 date-time with an explicit zone: anything else Date.parse reads in the host's zone, or guesses. */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * Argus journal `ts` is epoch seconds (JournalEntry.ts: float); the same as a decimal string,
 * and ISO-8601 with a zone, are read too. Nothing else: V8's Date.parse would read "12" as
 * 2001 and a zone-less "2026-12-01 15:00" in the host's zone, so freshness would hang on the TZ.
 */
function isoTime(ts: number | string): string | null {
  let ms = Number.NaN;
  if (typeof ts === 'number') ms = ts * 1000;
  else if (EPOCH_SECONDS.test(ts)) ms = Number(ts) * 1000;
  else if (ISO_WITH_ZONE.test(ts)) ms = Date.parse(ts);
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : null;
}

/**
 * The event key of a journal entry. `extra` is the whole `life.mission.completed` event row
 * (memory.py `_entry_from_event`: `extra = row`), which carries `item_id` and the item's
 * `objective`. Real Argus has no `event_key` field, so the first `EVENT_KEY:` line of the
 * objective (our envelope's, which precedes the untrusted block) is the fallback; the fake
 * writes `event_key` outright. Either way the verdict also demands the dispatched item id.
 */
function journalEventKey(extra: Record<string, unknown>): string | null {
  const direct = extra.event_key;
  if (typeof direct === 'string') return EVENT_KEY_PATTERN.test(direct) ? direct : null;
  const objective = extra.objective;
  if (typeof objective !== 'string') return null;
  const line = /^EVENT_KEY: ?(\S+)\s*$/m.exec(objective.slice(0, 20_000));
  return line?.[1] && EVENT_KEY_PATTERN.test(line[1]) ? line[1] : null;
}

/** BacklogItem.outcome is a dict; its status-like field, if it has one, is what we show. */
function outcomeLabel(outcome: unknown, secrets: readonly string[]): string | null {
  if (typeof outcome === 'string') return remoteText(outcome, secrets, ARGUS_TEXT_CAPS.outcome);
  if (!outcome || typeof outcome !== 'object') return null;
  const o = outcome as Record<string, unknown>;
  for (const key of ['status', 'final_review_status', 'review_status', 'verdict']) {
    const v = o[key];
    if (typeof v === 'string' && v.trim() !== '') return remoteText(v, secrets, ARGUS_TEXT_CAPS.outcome);
  }
  return null;
}

/**
 * `argus_status` → `{ok, status: {identity, backlog_pending[], pending_questions[], journal[≤3],
 * continuous, inbox_pending, daemon: {alive, pid, ...}, roles, active_role, request_usage}}`
 * (mission_items.get_status). `backlog_pending` holds only items with status "pending";
 * `pending_questions` every item with a pending_question, whatever its status. Our backlog is
 * their union by id.
 */
export function parseStatus(raw: unknown, secrets: readonly string[]): Outcome<ArgusStatus> {
  const item = z
    .object({
      id: identifier(secrets),
      title: z.string().optional(),
      status: z.string().optional(),
      pending_question: z.string().nullable().optional(),
      outcome: z.unknown().optional(),
    })
    .loose();
  const entry = z
    .object({
      id: identifier(secrets),
      ts: z.union([z.number(), z.string()]),
      kind: z.string(),
      title: z.string().optional(),
      summary: z.string().optional(),
      extra: z.record(z.string(), z.unknown()).optional(),
    })
    .loose();
  const schema = okEnvelope.extend({
    status: z
      .object({
        backlog_pending: z.array(item).max(2_000).default([]),
        pending_questions: z.array(item).max(2_000).default([]),
        journal: z.array(entry).max(200).default([]),
        daemon: z.object({ alive: z.boolean() }).loose().nullable().optional(),
      })
      .loose(),
  });
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return fail('argus_bad_result', 'Argus answered the status read in a shape we do not read.');
  const s = parsed.data.status;
  const text = (v: string | null | undefined, cap: number) => sanitizeRemoteText(v ?? '', secrets, cap);
  const byId = new Map<string, ArgusStatus['backlog'][number]>();
  for (const it of [...s.backlog_pending, ...s.pending_questions]) {
    byId.set(it.id, {
      id: it.id,
      title: text(it.title, ARGUS_TEXT_CAPS.title),
      status: text(it.status, ARGUS_TEXT_CAPS.status),
      pendingQuestion: remoteText(it.pending_question ?? null, secrets, ARGUS_TEXT_CAPS.question),
      outcome: outcomeLabel(it.outcome, secrets),
    });
  }
  const journal: ArgusStatus['journal'] = [];
  for (const e of s.journal) {
    const ts = isoTime(e.ts);
    if (ts === null) return fail('argus_bad_result', 'Argus reported a journal entry without a usable time.');
    const extra = e.extra ?? {};
    const itemId = typeof extra.item_id === 'string' && isRemoteIdentifier(extra.item_id, secrets) ? extra.item_id : null;
    journal.push({
      id: e.id,
      ts,
      kind: text(e.kind, ARGUS_TEXT_CAPS.kind),
      title: text(e.title, ARGUS_TEXT_CAPS.title),
      summary: text(e.summary, ARGUS_TEXT_CAPS.summary),
      itemId,
      eventKey: journalEventKey(extra),
    });
  }
  const backlog = [...byId.values()];
  return ok({
    daemonAlive: s.daemon?.alive ?? false,
    backlog,
    pendingQuestions: backlog.flatMap((b) => (b.pendingQuestion ? [{ itemId: b.id, question: b.pendingQuestion }] : [])),
    journal,
  });
}

/** `argus_stop` → `{ok, result: {rc: 0, ...}}`; `already_stopped` when nothing ran. */
export function parseStop(raw: unknown): Outcome<{ stopped: boolean }> {
  const parsed = okEnvelope.extend({ result: z.object({ rc: z.number().optional(), already_stopped: z.boolean().optional() }).loose() }).safeParse(raw);
  if (!parsed.success) return fail('argus_bad_result', 'Argus answered the stop in a shape we do not read.');
  return ok({ stopped: parsed.data.result.already_stopped !== true });
}
