/**
 * The A2A client: discovery once, then JSON-RPC calls in the remote's own dialect, every
 * answer normalized to a TaskSnapshot or a RemoteError value. Nothing here throws.
 * @module
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { parseBaseUrl, type BaseUrl } from './base-url.js';
import { createControlClient, type RpcCaller } from './control-client.js';
import { discoverRemote } from './discovery.js';
import { err, ok, refusedLocally, remoteError, type RemoteError, type Result } from './errors.js';
import { checkAuthority, checkMutationAllowed, checkStrings } from './guards.js';
import { createHttpTransport, DEFAULT_HTTP_OPTIONS, type HttpTransport } from './http.js';
import { readRpcReply, rpcBody } from './json-rpc.js';
import { checkListRequest, listTasksParams, readTaskPage } from './list-tasks.js';
import { normalizeTask } from './normalize.js';
import { checkAnswerIsAbout } from './remote-fields.js';
import { authHeaders, buildSession, HEADER_SAFE_TOKEN, type Session } from './session.js';
import type { TaskSnapshot } from './snapshot.js';
import type { A2AClient, A2AClientOptions, A2AControl } from './types.js';

/**
 * Either working transports for the configured origin, or the reason there can be none. Two
 * lanes: status reads (and discovery) on one pool, lease and mutation calls on their own, so a
 * renewal never waits for a socket that a slow status read holds.
 */
type Target = { ok: true; base: BaseUrl; http: HttpTransport; control: HttpTransport } | { ok: false; error: RemoteError };

/** Sockets for lease and mutation calls: few, since one campaign has at most one in flight. */
const CONTROL_CONNECTIONS = 16;

function openTarget(opts: A2AClientOptions): Target {
  if (opts.token !== undefined && opts.token !== '' && !HEADER_SAFE_TOKEN.test(opts.token)) {
    return { ok: false, error: remoteError('invalid_request', 'the access token contains characters that cannot travel in an HTTP header', 'not_sent') };
  }
  const base = parseBaseUrl(opts.baseUrl, opts.token);
  if (!base.ok) return base;
  const lane = (connections: number) =>
    createHttpTransport(base.value.origin, {
      connectMs: opts.timeouts?.connectMs ?? DEFAULT_HTTP_OPTIONS.connectMs,
      headersMs: opts.timeouts?.headersMs ?? DEFAULT_HTTP_OPTIONS.headersMs,
      bodyMs: opts.timeouts?.bodyMs ?? DEFAULT_HTTP_OPTIONS.bodyMs,
      overallMs: opts.timeouts?.overallMs ?? DEFAULT_HTTP_OPTIONS.overallMs,
      maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_HTTP_OPTIONS.maxBodyBytes,
      connections,
    });
  return { ok: true, base: base.value, http: lane(opts.connections ?? DEFAULT_HTTP_OPTIONS.connections), control: lane(CONTROL_CONNECTIONS) };
}

/**
 * Creates a client for one remote. A base URL that could carry a credential is refused here
 * and every call then returns that refusal (`remote_url_rejected`, `not_sent`).
 * @example
 * const client = createA2AClient({ baseUrl: 'http://127.0.0.1:8080/a2a', token: process.env.OPENTRAINING_A2A_TOKEN });
 * const snap = await client.getTask(taskId); // Result<TaskSnapshot>
 */
export function createA2AClient(opts: A2AClientOptions): A2AClient {
  return new HttpA2AClient(opts);
}

/**
 * One remote over HTTP JSON-RPC: its session (discovery) is shared by every call, its request
 * ids are its own. The interface's members are arrow properties, not prototype methods: callers
 * spread the client (`{ ...real, control }`) and pass its methods around, so each must be an
 * own property bound to this instance, as the object literal this class replaced had them.
 */
export class HttpA2AClient implements A2AClient {
  readonly control: A2AControl;
  readonly #token: string | undefined;
  /** Our own credentials, redacted from everything the remote sends (it may echo them). */
  readonly #secrets: readonly string[];
  private readonly log: Logger;
  private readonly target: Target;
  #session: Session | undefined;
  /** The discovery in flight, shared by concurrent first callers. */
  #pending: Promise<Result<Session>> | undefined;
  private nextId = 1;
  private closed = false;

  /** Held in a true private field, with the token and secrets: a copied or logged client shows none of them. */
  readonly #opts: A2AClientOptions;

  constructor(opts: A2AClientOptions) {
    this.#opts = opts;
    this.#token = opts.token === '' ? undefined : opts.token;
    this.#secrets = [...(this.#token ? [this.#token] : []), ...(opts.redact ?? []).filter((s) => s !== '')];
    this.log = (opts.logger ?? silentLogger()).child({ component: 'a2a' });
    this.target = openTarget(opts);
    const caller: RpcCaller = {
      session: () => this.ensureSession(),
      call: (s, method, params, kind) => this.call(s, method, params, kind),
      secrets: this.#secrets,
    };
    this.control = createControlClient(caller);
  }

  readonly discover: A2AClient['discover'] = async () => {
    const s = await this.ensureSession();
    return s.ok ? ok(s.value.description) : s;
  };

  readonly getTask: A2AClient['getTask'] = async (taskId, bound) => {
    if (typeof taskId !== 'string' || taskId === '') return refusedLocally('invalid_request', 'taskId must be a non-empty string');
    const expected = { taskId, contextId: bound?.contextId ?? null };
    const known = this.#session;
    if (known) return this.taskCall(known, known.dialect.methods.get, known.dialect.getTaskParams(taskId), 'read', expected);
    const s = await this.ensureSession();
    if (!s.ok) return s;
    return this.taskCall(s.value, s.value.dialect.methods.get, s.value.dialect.getTaskParams(taskId), 'read', expected);
  };

  /** One ListTasks page on the read lane; every task through the GetTask boundary (list-tasks.ts). */
  readonly listTasks: NonNullable<A2AClient['listTasks']> = async (req) => {
    const s = this.#session ? ok(this.#session) : await this.ensureSession();
    if (!s.ok) return s;
    const checked = checkListRequest(req, s.value.description.protocolVersion);
    if (!checked.ok) return checked;
    const result = await this.call(s.value, 'ListTasks', listTasksParams(req), 'read', 'read');
    if (!result.ok) return result;
    return this.failed('ListTasks', 'read', readTaskPage(result.value, req.pageSize, this.#secrets));
  };

  readonly submit: A2AClient['submit'] = async (req) => {
    const authority = checkAuthority(req.authority);
    if (!authority.ok) return authority;
    const args = checkStrings(req.contextId === undefined ? { text: req.text } : { text: req.text, contextId: req.contextId });
    if (!args.ok) return args;
    const s = await this.ensureSession();
    if (!s.ok) return s;
    const allowed = checkMutationAllowed(s.value.description, 'submit');
    if (!allowed.ok) return allowed;
    const { dialect } = s.value;
    const result = await this.call(s.value, dialect.methods.send, dialect.sendParams(req.text, req.contextId, authority.value), 'mutation');
    if (!result.ok) return result;
    const task = dialect.taskOfSendResult(result.value);
    if (task === undefined) {
      return this.failed(dialect.methods.send, 'mutation', err(remoteError('remote_malformed', 'the remote answered the submission with a message, not a task', 'ambiguous')));
    }
    return this.failed(dialect.methods.send, 'mutation', normalizeTask(task, this.#secrets));
  };

  readonly reply: A2AClient['reply'] = async (req) => {
    const authority = checkAuthority(req.authority);
    if (!authority.ok) return authority;
    const args = checkStrings({ taskId: req.taskId, contextId: req.contextId, text: req.text });
    if (!args.ok) return args;
    const s = await this.ensureSession();
    if (!s.ok) return s;
    // A reply is the remote's fenced message/send, the same capability as a submission.
    const allowed = checkMutationAllowed(s.value.description, 'submit');
    if (!allowed.ok) return allowed;
    const { dialect } = s.value;
    const method = dialect.methods.send;
    const result = await this.call(s.value, method, dialect.sendParams(req.text, req.contextId, authority.value, req.taskId), 'mutation');
    if (!result.ok) return result;
    const task = dialect.taskOfSendResult(result.value);
    if (task === undefined) {
      return this.failed(method, 'mutation', err(remoteError('remote_malformed', 'the remote answered the reply with a message, not the task', 'ambiguous')));
    }
    const snapshot = normalizeTask(task, this.#secrets);
    // Not the task we answered (or not in its context): nothing about it is taken as applied.
    return this.failed(method, 'mutation', snapshot.ok ? checkAnswerIsAbout(snapshot.value, { taskId: req.taskId, contextId: req.contextId }) : snapshot);
  };

  readonly cancel: A2AClient['cancel'] = async (taskId, { authority }) => {
    const checked = checkAuthority(authority);
    if (!checked.ok) return checked;
    const args = checkStrings({ taskId });
    if (!args.ok) return args;
    const s = await this.ensureSession();
    if (!s.ok) return s;
    const allowed = checkMutationAllowed(s.value.description, 'cancel');
    if (!allowed.ok) return allowed;
    const { dialect } = s.value;
    return this.taskCall(s.value, dialect.methods.cancel, dialect.cancelParams(taskId, checked.value), 'mutation', { taskId });
  };

  readonly close: A2AClient['close'] = async () => {
    if (!this.target.ok || this.closed) return;
    this.closed = true;
    await Promise.all([this.target.http.close(), this.target.control.close()]);
  };

  /** Logs a failed result (a mutation's at warn, a read's at debug) and passes it on unchanged. */
  private failed<T>(method: string, kind: 'read' | 'mutation', result: Result<T>): Result<T> {
    if (!result.ok) {
      const { code, outcome, httpStatus, rpcCode, message } = result.error;
      this.log[kind === 'mutation' ? 'warn' : 'debug']({ method, code, outcome, httpStatus, rpcCode }, message);
    }
    return result;
  }

  private async discoverOnce(): Promise<Result<Session>> {
    const target = this.target;
    if (!target.ok) return err(target.error);
    const headers = Object.freeze({ accept: 'application/json', ...authHeaders(this.#token) });
    const found = await discoverRemote(target.http, target.base, headers, this.#secrets);
    if (!found.ok) return this.failed('discover', 'read', found);
    const session = buildSession(found.value, this.#token);
    this.#session = session;
    this.log.debug({ protocolVersion: found.value.protocolVersion, mutationsEnabled: found.value.mutationsEnabled }, 'remote discovered');
    return ok(session);
  }

  /** Concurrent first callers share one discovery; a failure is not cached, the next call retries. */
  private ensureSession(): Promise<Result<Session>> {
    if (this.#session) return Promise.resolve(ok(this.#session));
    this.#pending ??= this.discoverOnce().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** `lane`: 'read' for status reads, 'control' for lease and mutation calls (their own sockets). */
  private async call(s: Session, method: string, params: unknown, kind: 'read' | 'mutation', lane: 'read' | 'control' = 'control'): Promise<Result<unknown>> {
    const target = this.target;
    if (!target.ok) return err(target.error);
    const id = this.nextId++;
    const started = this.#opts.onRequest ? performance.now() : 0;
    const http = lane === 'read' ? target.http : target.control;
    const reply = await http.request('POST', s.rpcPath, s.headers, rpcBody(id, method, params));
    const result = reply.ok ? readRpcReply(reply.value, id, this.#secrets) : reply;
    this.#opts.onRequest?.(method, result.ok ? 'ok' : result.error.code, (performance.now() - started) / 1000);
    return this.failed(method, kind, result);
  }

  /** One task answer, normalized; it must be about `expected.taskId` (and its bound context, if given). */
  private async taskCall(
    s: Session,
    method: string,
    params: unknown,
    kind: 'read' | 'mutation',
    expected: { taskId: string; contextId?: string | null },
  ): Promise<Result<TaskSnapshot>> {
    const result = await this.call(s, method, params, kind, method === s.dialect.methods.get ? 'read' : 'control');
    if (!result.ok) return result;
    const task = normalizeTask(result.value, this.#secrets);
    return this.failed(method, kind, task.ok ? checkAnswerIsAbout(task.value, expected) : task);
  }
}
