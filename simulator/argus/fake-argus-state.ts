/**
 * SIMULATED Argus: the fake's files under `ARGUS_SKILL_HOME`, so a restarted fake sees the
 * same projects, items and journal: one JSON document per project, the optional script the
 * tests write, and the record of every start and tool call (the canary tests read it).
 * Synchronous I/O on purpose: one fake serves one bridge, and a read-modify-write that never
 * yields cannot interleave with another call.
 * @module
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A backlog item in the shape of Argus's BacklogItem.to_jsonable (the fields the tools show). */
export interface FakeItem {
  id: string;
  ts: number;
  title: string;
  objective: string;
  original_objective: string;
  status: string;
  priority: number;
  tags: string[];
  notes: string;
  pending_question: string;
  operator_decision: Record<string, unknown>;
  manager_decision: Record<string, unknown>;
  outcome: Record<string, unknown>;
  attempt: number;
  started_ts: number | null;
  finished_ts: number | null;
  last_error: string;
}

/** What the scripted daemon will do with an item (kept beside the item, never shown by a tool). */
export interface FakeRun {
  eventKey: string | null;
  settleAt: number;
  started: boolean;
  settled: boolean;
  /** argus_status reads that ran the daemon since dispatch (for `settleAfterPolls`). */
  polls?: number;
}

/** An Argus JournalEntry.to_jsonable: `extra` is the whole event row, as in life/memory.py. */
export interface FakeJournalEntry {
  id: string;
  ts: number;
  kind: string;
  title: string;
  summary: string;
  tags: string[];
  cost_usd: number;
  extra: Record<string, unknown>;
}

export interface FakeProject {
  sid: string;
  display_name: string;
  workdir: string;
  created: number;
  stopped: boolean;
  items: FakeItem[];
  runs: Record<string, FakeRun>;
  journal: FakeJournalEntry[];
}

/** One script entry (keyed by event-key prefix or `*` in fake-argus-script.json). */
export interface ScriptEntry {
  reply?: 'task' | 'chat' | 'pending_question';
  verdict?: 'complete' | 'failed' | 'blocked' | 'none';
  /** The decision file the mission writes; null writes none. `$EVENT_KEY`/`$ITEM_ID` in strings are filled in. */
  proposal?: Record<string, unknown> | null;
  settleAfterMs?: number;
  /**
   * The mission settles no earlier than the n-th argus_status read after dispatch (the first
   * read starts it): a test that needs the supervisor to poll a running mission several times
   * says so by count, not by a wall-clock delay a loaded machine can outrun.
   */
  settleAfterPolls?: number;
  /** argus_message sleeps this long first (budget tests). */
  hangMs?: number;
  question?: string;
  // Fake-only levers for the bridge's own tests:
  /** argus_message answers `{ok:false, error_code}` with this code. */
  errorCode?: string;
  /** On the `*` entry: argus_project_create answers `{ok:false, error_code}` with this code. */
  createErrorCode?: string;
  /** On the `*` entry: every project is gone (Argus lost its state): the tools answer project_not_found. */
  projectsLost?: boolean;
  /** argus_message (or, on the `*` entry, argus_status) answers a result of the wrong shape. */
  malformed?: boolean;
  /** The text of a chat reply, the mission's title and its journal summary (hostile-text tests). */
  chatReply?: string;
  title?: string;
  summary?: string;
}

export const SIMULATED_IDENTITY = 'SIMULATED Argus (fake-argus): a scripted Manager, daemon and Reviewer; no model runs here.';

export class FakeArgusStore {
  readonly projectsDir: string;

  constructor(readonly home: string) {
    this.projectsDir = path.join(home, 'fake-argus', 'projects');
    mkdirSync(this.projectsDir, { recursive: true });
  }

  private file(sid: string): string {
    return path.join(this.projectsDir, `${sid}.json`);
  }

  load(sid: string): FakeProject | null {
    if (!/^s-[0-9a-f]{8}$/.test(sid) || !existsSync(this.file(sid))) return null;
    if (this.script(null).projectsLost) return null;
    return JSON.parse(readFileSync(this.file(sid), 'utf8')) as FakeProject;
  }

  save(project: FakeProject): void {
    const tmp = `${this.file(project.sid)}.tmp`;
    writeFileSync(tmp, JSON.stringify(project, null, 1));
    renameSync(tmp, this.file(project.sid));
  }

  list(): FakeProject[] {
    return readdirJson(this.projectsDir).flatMap((name) => {
      const p = this.load(name.replace(/\.json$/, ''));
      return p ? [p] : [];
    });
  }

  /**
   * The fake's clock (epoch ms): `fake-argus-clock.json` (`{"ms": <epoch ms>}`) when a test
   * wrote one, so the journal's times and the missions' settling follow a test's clock (a
   * supervisor on an injected clock judges a verdict's freshness against it); else real time.
   */
  nowMs(): number {
    const file = path.join(this.home, 'fake-argus-clock.json');
    if (!existsSync(file)) return Date.now();
    const ms = (JSON.parse(readFileSync(file, 'utf8')) as { ms?: unknown }).ms;
    return typeof ms === 'number' && Number.isFinite(ms) ? ms : Date.now();
  }

  /** The entry for `eventKey`: the longest matching prefix key, else `*`, else defaults. */
  script(eventKey: string | null): ScriptEntry {
    const file = path.join(this.home, 'fake-argus-script.json');
    if (!existsSync(file)) return {};
    const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, ScriptEntry>;
    const keys = Object.keys(all)
      .filter((k) => k !== '*' && eventKey !== null && eventKey.startsWith(k))
      .sort((a, b) => b.length - a.length);
    return all[keys[0] ?? '*'] ?? {};
  }

  record(entry: Record<string, unknown>): void {
    appendFileSync(path.join(this.home, 'fake-argus-record.jsonl'), `${JSON.stringify({ ...entry, pid: process.pid, at: new Date().toISOString() })}\n`);
  }
}

function readdirJson(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
}

/**
 * The decision file name of an event key: the same one-line rule as
 * adapters/argus/proposal-file.ts `eventKeyFileName` (the simulator may not import it; a test
 * pins the two together): a key of `[A-Za-z0-9._:-]{1,128}` with `:` mapped to `_`.
 */
export function fakeEventKeyFileName(key: string): string {
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(key)) throw new RangeError('not an event key');
  return key.replace(/:/g, '_');
}
