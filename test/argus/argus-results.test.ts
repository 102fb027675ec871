/**
 * Reading Argus's tool results, in the shapes of microsoft/ArgusAgent@455da6cb (service.py,
 * manager_bridge.py, mission_items.py, life/memory.py): what each `argus_message` kind means
 * for us, how status becomes backlog / questions / journal, and that hostile text leaves
 * sanitized while malformed results are refused whole.
 */
import { describe, expect, it } from 'vitest';
import { parseMessage, parseProjectCreate, parseStatus, parseStop, toolFailure } from '../../adapters/argus/argus-results.js';

const echo = `echo-${'ab12'.repeat(6)}`; // a value the bridge was told to redact
const S = [echo];

/** A BacklogItem.to_jsonable as Argus sends it (fields abridged; the rest pass through). */
const item = (id: string, extra: Record<string, unknown> = {}) => ({ id, ts: 1_760_000_000.5, title: 't', objective: 'o', status: 'pending', priority: 100, pending_question: '', operator_decision: {}, outcome: {}, ...extra });
/** A JournalEntry.to_jsonable whose extra is the life.mission.completed event row. */
const entry = (kind: string, itemId: string, extra: Record<string, unknown> = {}) => ({
  id: itemId,
  ts: 1_760_000_100.25,
  kind,
  title: 'mission',
  summary: 'done',
  tags: ['life.mission.completed'],
  cost_usd: 0,
  extra: { type: 'life.mission.completed', item_id: itemId, success: kind === 'mission_complete', status: 'done', ...extra },
});
const status = (s: Record<string, unknown>) => ({ ok: true, status: { identity: '', backlog_pending: [], pending_questions: [], journal: [], continuous: {}, inbox_pending: 0, daemon: { alive: true, pid: 7 }, roles: [], active_role: null, request_usage: {}, ...s } });

describe('argus_project_create', () => {
  it('reads project.sid (create_daemon names it sid), and id as a fallback', () => {
    expect(parseProjectCreate({ ok: true, project: { sid: 's-0a1b2c3d', rc: 0, spawned: false, workdir: '/w' } }, S)).toEqual({ ok: true, value: { projectId: 's-0a1b2c3d' } });
    expect(parseProjectCreate({ ok: true, project: { id: 's-0a1b2c3d' } }, S)).toEqual({ ok: true, value: { projectId: 's-0a1b2c3d' } });
    for (const bad of [{ ok: true, project: {} }, { ok: true, project: { sid: 'has space' } }, { ok: true }, { ok: true, project: { sid: echo } }]) {
      expect(parseProjectCreate(bad, S)).toMatchObject({ ok: false, error: { code: 'argus_bad_result' } });
    }
  });
});

describe('argus_message kinds', () => {
  it('task: the dispatched item is item.id; null while the Planner sequences it', () => {
    expect(parseMessage({ ok: true, kind: 'task', reply: 'queued', item: item('0123456789ab'), daemon_alive: true, dispatch_state: 'queued' }, S)).toEqual({ ok: true, value: { kind: 'task', itemId: '0123456789ab' } });
    expect(parseMessage({ ok: true, kind: 'task', reply: null, item: null, continuous: true, dispatch_state: 'planner_pending' }, S)).toEqual({ ok: true, value: { kind: 'task', itemId: null } });
  });

  it('chat, control and cancelled settle with the sanitized reply', () => {
    expect(parseMessage({ ok: true, kind: 'chat', reply: `\u001b[31mhi\u202e ${echo} Bearer abc.def` }, S)).toEqual({ ok: true, value: { kind: 'chat', reply: 'hi [REDACTED] Bearer [REDACTED]' } });
    expect(parseMessage({ ok: true, kind: 'control', control: 'steer', reply: 'steered' }, S)).toEqual({ ok: true, value: { kind: 'chat', reply: 'steered' } });
    expect(parseMessage({ ok: true, kind: 'cancelled', reply: 'Manager request cancelled; no task was dispatched.' }, S)).toMatchObject({ ok: true, value: { kind: 'chat' } });
  });

  it('pending_question resolved is the continuation task; unresolved is the Manager’s question about that item', () => {
    const resolved = { ok: true, kind: 'pending_question', reply: 'I have delivered your decision to the team.', answered_item_id: 'aaaaaaaaaaaa', answer_intent: true, resolved: true, application_status: 'accepted', item: item('bbbbbbbbbbbb') };
    expect(parseMessage(resolved, S)).toEqual({ ok: true, value: { kind: 'task', itemId: 'bbbbbbbbbbbb' } });
    const unresolved = { ok: true, kind: 'pending_question', reply: 'Which checkpoint?', answered_item_id: 'aaaaaaaaaaaa', answer_intent: true, resolved: false };
    expect(parseMessage(unresolved, S)).toEqual({ ok: true, value: { kind: 'pending_question', itemId: 'aaaaaaaaaaaa', question: 'Which checkpoint?' } });
    expect(parseMessage({ ok: true, kind: 'pending_question_choice', reply: 'More than one task needs your input.' }, S)).toEqual({ ok: true, value: { kind: 'pending_question', itemId: null, question: 'More than one task needs your input.' } });
  });

  it('refuses an unknown kind, a non-identifier item id, or a missing ok', () => {
    for (const bad of [{ ok: true, kind: 'error' }, { ok: true, kind: 'task', item: { id: 42 } }, { ok: true, kind: 'task', item: { id: 'a b' } }, { kind: 'chat', reply: 'x' }, 'text', null]) {
      expect(parseMessage(bad, S)).toMatchObject({ ok: false, error: { code: 'argus_bad_result' } });
    }
  });
});

describe('tool failures', () => {
  it('keep a plain error_code, else argus_error; the sentence carries only a sanitized excerpt', () => {
    expect(toolFailure({ ok: false, error_code: 'manager_failed', error: `boom ${echo}` }, S)).toEqual({ ok: false, error: { code: 'manager_failed', message: 'Argus refused the call: boom [REDACTED]' } });
    expect(toolFailure({ ok: false, error_code: 'Weird Code!', error: 'x' }, S)).toMatchObject({ ok: false, error: { code: 'argus_error' } });
    expect(toolFailure({ ok: false, error_code: echo }, S)).toMatchObject({ ok: false, error: { code: 'argus_error' } });
    expect(toolFailure({ ok: false }, S)).toMatchObject({ ok: false, error: { code: 'argus_error' } });
    expect(toolFailure({ ok: true }, S)).toBeNull();
  });
});

describe('argus_status', () => {
  it('unites backlog_pending and pending_questions by id, lists questions, maps journal ts (epoch s) to ISO', () => {
    const blocked = item('cccccccccccc', { status: 'paused_operator', pending_question: 'Continue past epoch 3?', outcome: { status: 'blocked' } });
    const raw = status({ backlog_pending: [item('dddddddddddd')], pending_questions: [blocked], journal: [entry('mission_complete', 'eeeeeeeeeeee', { event_key: 'camp-1:ev:4' })] });
    expect(parseStatus(raw, S)).toEqual({
      ok: true,
      value: {
        daemonAlive: true,
        backlog: [
          { id: 'dddddddddddd', title: 't', status: 'pending', pendingQuestion: null, outcome: null },
          { id: 'cccccccccccc', title: 't', status: 'paused_operator', pendingQuestion: 'Continue past epoch 3?', outcome: 'blocked' },
        ],
        pendingQuestions: [{ itemId: 'cccccccccccc', question: 'Continue past epoch 3?' }],
        journal: [{ id: 'eeeeeeeeeeee', ts: new Date(1_760_000_100_250).toISOString(), kind: 'mission_complete', title: 'mission', summary: 'done', itemId: 'eeeeeeeeeeee', eventKey: 'camp-1:ev:4' }],
      },
    });
  });

  it('real Argus has no event_key in extra: the first EVENT_KEY line of the objective stands in', () => {
    const objective = 'Fixed instructions\nEVENT_KEY: camp-1:ev:9\n<<<UNTRUSTED\nEVENT_KEY: evil\n';
    const r = parseStatus(status({ journal: [entry('mission_complete', 'eeeeeeeeeeee', { objective })] }), S);
    expect(r.ok && r.value.journal[0]?.eventKey).toBe('camp-1:ev:9');
    const none = parseStatus(status({ journal: [entry('mission_failed', 'eeeeeeeeeeee', { objective: 'no key here' })] }), S);
    expect(none.ok && none.value.journal[0]).toMatchObject({ kind: 'mission_failed', eventKey: null });
    const badKey = parseStatus(status({ journal: [entry('mission_complete', 'eeeeeeeeeeee', { event_key: '../../etc', objective })] }), S);
    expect(badKey.ok && badKey.value.journal[0]?.eventKey).toBeNull();
  });

  it('an item id in extra that is not an identifier becomes null; hostile titles and summaries are sanitized and capped', () => {
    const hostile = entry('mission_complete', 'eeeeeeeeeeee', { item_id: 'x y' });
    hostile.title = `\u001b]0;pwn\u0007Title ${echo}`;
    hostile.summary = 'S'.repeat(5_000);
    const r = parseStatus(status({ journal: [hostile], daemon: null }), S);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.daemonAlive).toBe(false);
    expect(r.value.journal[0]).toMatchObject({ itemId: null, title: 'Title [REDACTED]' });
    expect(r.value.journal[0]?.summary.length).toBe(500);
  });

  it('refuses a status whose shape is wrong or whose ids or times are unusable', () => {
    for (const bad of [
      { ok: true, status: { journal: 'nope' } },
      { ok: true },
      status({ backlog_pending: [item('a b')] }),
      status({ journal: [{ ...entry('mission_complete', 'eeeeeeeeeeee'), ts: 'not a time' }] }),
      status({ journal: [{ ...entry('mission_complete', 'eeeeeeeeeeee'), id: echo }] }),
    ]) {
      expect(parseStatus(bad, S)).toMatchObject({ ok: false, error: { code: 'argus_bad_result' } });
    }
  });
});

describe('argus_stop', () => {
  it('reads result.rc and already_stopped', () => {
    expect(parseStop({ ok: true, result: { rc: 0 } })).toEqual({ ok: true, value: { stopped: true } });
    expect(parseStop({ ok: true, result: { rc: 0, source_rc: 1, already_stopped: true } })).toEqual({ ok: true, value: { stopped: false } });
    expect(parseStop({ ok: true })).toMatchObject({ ok: false, error: { code: 'argus_bad_result' } });
  });
});
