/**
 * SIMULATED Argus MCP server: the real tool names, argument names and result shapes of
 * argus_skill/plugin/mcp_server.py + service.py (microsoft/ArgusAgent@455da6cb), played by a
 * deterministic script instead of a Manager, a daemon and a Reviewer:
 * - `argus_message` with an `EVENT_KEY: <key>` line dispatches a backlog item for that key
 *   (`kind:"task"`, the item in `item`); without one it is a chat. A line
 *   `OPERATOR_ANSWER_FOR: <item id>` answers that item's pending question (Argus's
 *   `kind:"pending_question"`, `resolved:true`, the continuation in `item`).
 * - `argus_status` lets the "daemon" run what is due: the item starts (`mission_started`), and
 *   once `settleAfterMs` has passed (and, if scripted, `settleAfterPolls` reads ran) the mission writes `decisions/<key>.json` in the workdir and
 *   settles with `mission_complete` / `mission_failed` (journal `extra` = the event row with
 *   `item_id`, `event_key`, `objective`), or blocks the item with a `pending_question`.
 * - Its clock is real time unless a test wrote `fake-argus-clock.json` (FakeArgusStore.nowMs).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { FakeArgusStore, SIMULATED_IDENTITY, fakeEventKeyFileName, type FakeItem, type FakeProject, type ScriptEntry } from './fake-argus-state.js';

type Json = Record<string, unknown>;
/** Tool arguments after the SDK validated them against the tool's shape. */
type A = { workdir?: string; name?: string; project_id?: string; text?: string; force?: boolean };
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const error = (code: string, message: string, details: Json = {}): Json => ({ ok: false, error_code: code, error: message, ...details });
const answer = (value: Json) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: value });
const notFound = (sid: string) => error('project_not_found', `unknown Argus project: ${sid}`);

/** The first `NAME: value` line of our envelope (it precedes the untrusted block, so the first wins). */
export function envelopeLine(text: string, name: 'EVENT_KEY' | 'OPERATOR_ANSWER_FOR'): string | null {
  const m = new RegExp(`^${name}: ?([A-Za-z0-9._:-]{1,128})\\s*$`, 'm').exec(text);
  return m?.[1] ?? null;
}

function newItem(title: string, objective: string, status: string, ts: number): FakeItem {
  return {
    id: hex(6),
    ts,
    title,
    objective,
    original_objective: objective,
    status,
    priority: 100,
    tags: [],
    notes: '',
    pending_question: '',
    operator_decision: {},
    manager_decision: { source: 'SIMULATED' },
    outcome: {},
    attempt: 1,
    started_ts: null,
    finished_ts: null,
    last_error: '',
  };
}

function fill(value: unknown, eventKey: string, itemId: string): unknown {
  if (typeof value === 'string') return value.replaceAll('$EVENT_KEY', eventKey).replaceAll('$ITEM_ID', itemId);
  if (Array.isArray(value)) return value.map((v) => fill(v, eventKey, itemId));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, eventKey, itemId)]));
  return value;
}

export class FakeArgus {
  readonly store: FakeArgusStore;

  constructor(home: string) {
    this.store = new FakeArgusStore(home);
  }

  /** Argus times are epoch seconds (float), on the fake's clock (fake-argus-state.ts `nowMs`). */
  private now(): number {
    return this.store.nowMs() / 1000;
  }

  createProject(workdir: string, name: string): Json {
    let real: string;
    try {
      real = realpathSync(workdir);
      if (!statSync(real).isDirectory()) throw new Error('not a directory');
    } catch {
      return error('invalid_workdir', `workdir is not an existing directory: ${workdir}`);
    }
    const refusal = this.store.script(null).createErrorCode;
    if (refusal) return error(refusal, 'SIMULATED Argus could not create the project (scripted).');
    const project: FakeProject = { sid: `s-${hex(4)}`, display_name: name.trim(), workdir: real, created: this.now(), stopped: false, items: [], runs: {}, journal: [] };
    this.store.save(project);
    return { ok: true, project: { sid: project.sid, rc: 0, spawned: false, daemon: this.daemon(project), objective: '', workdir: real } };
  }

  listProjects(workdir: string): Json {
    const rows = this.store
      .list()
      .filter((p) => workdir.trim() === '' || p.workdir === safeReal(workdir))
      .map((p) => ({ id: p.sid, display_name: p.display_name, workdir: p.workdir, last_active: p.created, daemon_alive: this.daemon(p).alive }));
    return { ok: true, projects: rows };
  }

  async message(projectId: string, text: string): Promise<Json> {
    const sid = projectId.trim();
    const body = text.trim();
    if (!sid) return error('invalid_project_id', 'project_id is required');
    if (!body) return error('invalid_message', 'message text is required');
    const eventKey = envelopeLine(body, 'EVENT_KEY');
    const script = this.store.script(eventKey);
    if (script.hangMs) await sleep(script.hangMs);
    const project = this.store.load(sid);
    if (!project) {
      const reply = 'project no longer exists; the message was not processed';
      return error('manager_error', reply, { kind: 'error', reply });
    }
    if (script.errorCode) return error(script.errorCode, 'SIMULATED Argus Manager failure (scripted).');
    if (script.malformed) return { ok: true, kind: 'task', item: { id: 42 } };
    const answered = this.answer(project, body, eventKey);
    if (answered) return answered;
    if (eventKey === null || script.reply === 'chat') return { ok: true, kind: 'chat', reply: script.chatReply ?? 'SIMULATED Argus Manager: noted; nothing was queued.' };
    const title = script.title ?? `SIMULATED mission for ${eventKey}`;
    if (script.reply === 'pending_question') {
      const item = newItem(title, body, 'paused_operator', this.now());
      item.pending_question = script.question ?? 'SIMULATED Manager question: which way should this go?';
      project.items.push(item);
      this.store.save(project);
      return { ok: true, reply: item.pending_question, kind: 'pending_question', answered_item_id: item.id, answer_intent: true, resolved: false };
    }
    return this.dispatch(project, newItem(title, body, 'pending', this.now()), eventKey, script);
  }

  /** An operator answer (OPERATOR_ANSWER_FOR) to an item still waiting: Argus's resolved shape. */
  private answer(project: FakeProject, body: string, eventKey: string | null): Json | null {
    const target = envelopeLine(body, 'OPERATOR_ANSWER_FOR');
    const blocked = project.items.find((i) => i.id === target && i.pending_question !== '');
    if (!blocked) return null;
    blocked.operator_decision = { status: 'resolved', question: blocked.pending_question };
    blocked.pending_question = '';
    blocked.status = 'superseded';
    const key = eventKey ?? project.runs[blocked.id]?.eventKey ?? null;
    const continuation = newItem(`SIMULATED continuation of ${blocked.id}`, body, 'pending', this.now());
    const result = this.dispatch(project, continuation, key, this.store.script(key));
    const reply = 'I have delivered your decision to the team.';
    return { ok: true, reply, kind: 'pending_question', answered_item_id: blocked.id, answer_intent: true, resolved: true, application_status: 'accepted', resume_requested: true, manager_decision: body, item: result.item, daemon: result.daemon };
  }

  private dispatch(project: FakeProject, item: FakeItem, eventKey: string | null, script: ScriptEntry): Json {
    project.items.push(item);
    project.runs[item.id] = { eventKey, settleAt: this.store.nowMs() + (script.settleAfterMs ?? 0), started: false, settled: false };
    project.stopped = false;
    this.store.save(project);
    return {
      ok: true,
      kind: 'task',
      reply: 'queued; the active executor will pick up this task',
      item,
      daemon_alive: false,
      daemon_pid: null,
      continuous: false,
      dispatch_state: 'queued',
      daemon: { rc: 0, pid: process.pid, simulated: true },
    };
  }

  status(projectId: string): Json {
    const project = this.store.load(projectId.trim());
    if (!project) return notFound(projectId);
    if (this.store.script(null).malformed) return { ok: true, status: { journal: 'SIMULATED malformed status' } };
    this.runDaemon(project);
    this.store.save(project);
    const shown = (i: FakeItem) => ({ ...i });
    return {
      ok: true,
      status: {
        identity: SIMULATED_IDENTITY,
        backlog_pending: project.items.filter((i) => i.status === 'pending').map(shown),
        pending_questions: project.items.filter((i) => i.pending_question !== '').map(shown),
        journal: project.journal.slice(-3),
        continuous: { enabled: false, objective: '' },
        inbox_pending: 0,
        daemon: this.daemon(project),
        roles: [],
        active_role: null,
        request_usage: { simulated: true },
      },
    };
  }

  /** The scripted daemon and Reviewer: start what is pending, settle what is due. */
  private runDaemon(project: FakeProject): void {
    if (project.stopped) return;
    for (const item of project.items) {
      const run = project.runs[item.id];
      if (!run || run.settled) continue;
      const script = this.store.script(run.eventKey);
      if (!run.started) {
        run.started = true;
        item.status = 'running';
        item.started_ts = this.now();
        this.journal(project, 'mission_started', item, run.eventKey, { type: 'life.mission.started' });
      }
      run.polls = (run.polls ?? 0) + 1;
      const verdict = script.verdict ?? 'complete';
      if (verdict === 'none' || this.store.nowMs() < run.settleAt || run.polls < (script.settleAfterPolls ?? 0)) continue;
      run.settled = true;
      item.finished_ts = this.now();
      if (run.eventKey !== null && script.proposal !== null) this.writeProposal(project, item, run.eventKey, script);
      if (verdict === 'blocked') {
        item.status = 'paused_operator';
        item.pending_question = script.question ?? 'SIMULATED Reviewer question: should the run continue?';
        continue;
      }
      const success = verdict === 'complete';
      item.status = success ? 'done' : 'failed';
      item.outcome = { status: item.status, final_review_status: success ? 'accepted' : 'rejected', simulated: true };
      const summary = script.summary ?? (success ? 'SIMULATED Reviewer accepted the mission.' : 'SIMULATED Reviewer rejected the mission.');
      this.journal(project, success ? 'mission_complete' : 'mission_failed', item, run.eventKey, {
        type: 'life.mission.completed',
        success,
        status: item.status,
        summary,
        outcome_class: success ? 'accepted' : 'failed',
        failure_reason: success ? '' : summary,
      });
    }
  }

  private writeProposal(project: FakeProject, item: FakeItem, eventKey: string, script: ScriptEntry): void {
    const proposal = script.proposal
      ? fill(script.proposal, eventKey, item.id)
      : { decision_id: `sim-${item.id}`, event_key: eventKey, kind: 'observe', reason: 'SIMULATED Reviewer: nothing to change.', evidence_refs: [] };
    const dir = path.join(project.workdir, 'decisions');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${fakeEventKeyFileName(eventKey)}.json`), JSON.stringify(proposal, null, 2));
  }

  /** A journal entry as memory.py projects an event: id = item id, `extra` = the event row. */
  private journal(project: FakeProject, kind: string, item: FakeItem, eventKey: string | null, row: Json): void {
    const ts = this.now();
    const extra = { ...row, item_id: item.id, title: item.title, objective: item.objective, event_key: eventKey, ts };
    project.journal.push({ id: item.id, ts, kind, title: item.title, summary: typeof row.summary === 'string' ? row.summary : '', tags: [String(row.type)], cost_usd: 0, extra });
  }

  doctor(projectId: string): Json {
    const project = this.store.load(projectId.trim());
    if (!project) return notFound(projectId);
    const check = { name: 'simulated', ok: true, detail: 'SIMULATED fake Argus: no backend, no daemon, no model.', fix: '' };
    return { ok: true, doctor: { checks: [check], recommended: null, log_tail: 'SIMULATED' } };
  }

  stop(projectId: string): Json {
    const project = this.store.load(projectId.trim());
    if (!project) return notFound(projectId);
    const wasAlive = this.daemon(project).alive;
    project.stopped = true;
    for (const item of project.items) if (item.status === 'running') item.status = 'paused_daemon_shutdown';
    this.store.save(project);
    return wasAlive ? { ok: true, result: { rc: 0 } } : { ok: true, result: { rc: 0, source_rc: 1, already_stopped: true } };
  }

  artifacts(projectId: string): Json {
    const project = this.store.load(projectId.trim());
    if (!project) return notFound(projectId);
    return { ok: true, artifacts: [] };
  }

  private daemon(project: FakeProject): { alive: boolean; pid: number | null; simulated: true } {
    const alive = !project.stopped && project.items.some((i) => i.status === 'pending' || i.status === 'running');
    return { alive, pid: alive ? process.pid : null, simulated: true };
  }
}

function safeReal(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The MCP server: seven tools, argument names as in mcp_server.py, every call recorded. */
export function createFakeArgusServer(home: string): McpServer {
  const fake = new FakeArgus(home);
  const server = new McpServer({ name: 'argus', version: '0.1.2-SIMULATED' });
  // Arguments arrive validated by the SDK against `shape`; the casts below only name their fields.
  const tool = (name: string, description: string, shape: z.ZodRawShape, run: (args: A) => Json | Promise<Json>) =>
    server.registerTool(name, { description: `SIMULATED: ${description}`, inputSchema: shape }, async (args: Json) => {
      fake.store.record({ type: 'call', tool: name, arguments: args });
      return answer(await run(args as A));
    });
  tool('argus_project_create', 'Create an idle Argus project bound to an existing work directory.', { workdir: z.string(), name: z.string().optional() }, (a: A) => fake.createProject(a.workdir ?? '', a.name ?? ''));
  tool('argus_project_list', 'List Argus projects, optionally filtered by exact work directory.', { workdir: z.string().optional() }, (a: A) => fake.listProjects(a.workdir ?? ''));
  tool('argus_message', 'Send one operator turn through the Argus Manager front door.', { project_id: z.string(), text: z.string() }, (a: A) => fake.message(a.project_id ?? '', a.text ?? ''));
  tool('argus_status', 'Read bounded persisted status for one Argus project.', { project_id: z.string() }, (a: A) => fake.status(a.project_id ?? ''));
  tool('argus_doctor', 'Run non-mutating Argus runtime and backend diagnostics.', { project_id: z.string() }, (a: A) => fake.doctor(a.project_id ?? ''));
  tool('argus_stop', 'Stop an Argus project, draining gracefully unless force is explicit.', { project_id: z.string(), force: z.boolean().optional() }, (a: A) => fake.stop(a.project_id ?? ''));
  tool('argus_artifacts', 'List existing allowlisted artifacts selected by Argus.', { project_id: z.string() }, (a: A) => fake.artifacts(a.project_id ?? ''));
  return server;
}
