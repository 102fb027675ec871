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
import { discoverRemote, type RemoteDescription } from './discovery.js';
import { err, ok, refusedLocally, remoteError, type RemoteError, type Result } from './errors.js';
import { checkAuthority, checkMutationAllowed, checkStrings } from './guards.js';
import { createHttpTransport, DEFAULT_HTTP_OPTIONS, type HttpTransport } from './http.js';
import { readRpcReply, rpcBody } from './json-rpc.js';
import { normalizeTask } from './normalize.js';
import { checkAnswerIsAbout } from './remote-fields.js';
import { authHeaders, buildSession, HEADER_SAFE_TOKEN, type Session } from './session.js';
import type { TaskSnapshot } from './snapshot.js';
import type { A2AClient, A2AClientOptions } from './types.js';

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
  const token = opts.token === '' ? undefined : opts.token;
  // Our own credentials are redacted from everything the remote sends (it may echo them).
  const secrets: readonly string[] = [...(token ? [token] : []), ...(opts.redact ?? []).filter((s) => s !== '')];
  const log: Logger = (opts.logger ?? silentLogger()).child({ component: 'a2a' });
  const target = openTarget(opts);
  let session: Session | undefined;
  let pending: Promise<Result<Session>> | undefined;
  let nextId = 1;
  let closed = false;

  const failed = <T>(method: string, kind: 'read' | 'mutation', result: Result<T>): Result<T> => {
    if (!result.ok) {
      const { code, outcome, httpStatus, rpcCode, message } = result.error;
      log[kind === 'mutation' ? 'warn' : 'debug']({ method, code, outcome, httpStatus, rpcCode }, message);
    }
    return result;
  };

  async function discoverOnce(): Promise<Result<Session>> {
    if (!target.ok) return err(target.error);
    const headers = Object.freeze({ accept: 'application/json', ...authHeaders(token) });
    const found = await discoverRemote(target.http, target.base, headers, secrets);
    if (!found.ok) return failed('discover', 'read', found);
    session = buildSession(found.value, token);
    log.debug({ protocolVersion: found.value.protocolVersion, mutationsEnabled: found.value.mutationsEnabled }, 'remote discovered');
    return ok(session);
  }

  /** Concurrent first callers share one discovery; a failure is not cached, the next call retries. */
  function ensureSession(): Promise<Result<Session>> {
    if (session) return Promise.resolve(ok(session));
    pending ??= discoverOnce().finally(() => {
      pending = undefined;
    });
    return pending;
  }

  /** `lane`: 'read' for status reads, 'control' for lease and mutation calls (their own sockets). */
  async function call(s: Session, method: string, params: unknown, kind: 'read' | 'mutation', lane: 'read' | 'control' = 'control'): Promise<Result<unknown>> {
    if (!target.ok) return err(target.error);
    const id = nextId++;
    const started = opts.onRequest ? performance.now() : 0;
    const http = lane === 'read' ? target.http : target.control;
    const reply = await http.request('POST', s.rpcPath, s.headers, rpcBody(id, method, params));
    const result = reply.ok ? readRpcReply(reply.value, id, secrets) : reply;
    opts.onRequest?.(method, result.ok ? 'ok' : result.error.code, (performance.now() - started) / 1000);
    return failed(method, kind, result);
  }

  const caller: RpcCaller = { session: ensureSession, call, secrets };

  /** One task answer, normalized; it must be about `expected.taskId` (and its bound context, if given). */
  async function taskCall(
    s: Session,
    method: string,
    params: unknown,
    kind: 'read' | 'mutation',
    expected: { taskId: string; contextId?: string | null },
  ): Promise<Result<TaskSnapshot>> {
    const result = await call(s, method, params, kind, method === s.dialect.methods.get ? 'read' : 'control');
    if (!result.ok) return result;
    const task = normalizeTask(result.value, secrets);
    return failed(method, kind, task.ok ? checkAnswerIsAbout(task.value, expected) : task);
  }

  return {
    async discover(): Promise<Result<RemoteDescription>> {
      const s = await ensureSession();
      return s.ok ? ok(s.value.description) : s;
    },

    async getTask(taskId: string, bound?: { contextId?: string | null }): Promise<Result<TaskSnapshot>> {
      if (typeof taskId !== 'string' || taskId === '') return refusedLocally('invalid_request', 'taskId must be a non-empty string');
      const expected = { taskId, contextId: bound?.contextId ?? null };
      if (session) return taskCall(session, session.dialect.methods.get, session.dialect.getTaskParams(taskId), 'read', expected);
      const s = await ensureSession();
      if (!s.ok) return s;
      return taskCall(s.value, s.value.dialect.methods.get, s.value.dialect.getTaskParams(taskId), 'read', expected);
    },

    async submit(req): Promise<Result<TaskSnapshot>> {
      const authority = checkAuthority(req.authority);
      if (!authority.ok) return authority;
      const args = checkStrings(req.contextId === undefined ? { text: req.text } : { text: req.text, contextId: req.contextId });
      if (!args.ok) return args;
      const s = await ensureSession();
      if (!s.ok) return s;
      const allowed = checkMutationAllowed(s.value.description, 'submit');
      if (!allowed.ok) return allowed;
      const { dialect } = s.value;
      const result = await call(s.value, dialect.methods.send, dialect.sendParams(req.text, req.contextId, authority.value), 'mutation');
      if (!result.ok) return result;
      const task = dialect.taskOfSendResult(result.value);
      if (task === undefined) {
        return failed(dialect.methods.send, 'mutation', err(remoteError('remote_malformed', 'the remote answered the submission with a message, not a task', 'ambiguous')));
      }
      return failed(dialect.methods.send, 'mutation', normalizeTask(task, secrets));
    },

    async reply(req): Promise<Result<TaskSnapshot>> {
      const authority = checkAuthority(req.authority);
      if (!authority.ok) return authority;
      const args = checkStrings({ taskId: req.taskId, contextId: req.contextId, text: req.text });
      if (!args.ok) return args;
      const s = await ensureSession();
      if (!s.ok) return s;
      // A reply is the remote's fenced message/send, the same capability as a submission.
      const allowed = checkMutationAllowed(s.value.description, 'submit');
      if (!allowed.ok) return allowed;
      const { dialect } = s.value;
      const method = dialect.methods.send;
      const result = await call(s.value, method, dialect.sendParams(req.text, req.contextId, authority.value, req.taskId), 'mutation');
      if (!result.ok) return result;
      const task = dialect.taskOfSendResult(result.value);
      if (task === undefined) {
        return failed(method, 'mutation', err(remoteError('remote_malformed', 'the remote answered the reply with a message, not the task', 'ambiguous')));
      }
      const snapshot = normalizeTask(task, secrets);
      // Not the task we answered (or not in its context): nothing about it is taken as applied.
      return failed(method, 'mutation', snapshot.ok ? checkAnswerIsAbout(snapshot.value, { taskId: req.taskId, contextId: req.contextId }) : snapshot);
    },

    async cancel(taskId, { authority }): Promise<Result<TaskSnapshot>> {
      const checked = checkAuthority(authority);
      if (!checked.ok) return checked;
      const args = checkStrings({ taskId });
      if (!args.ok) return args;
      const s = await ensureSession();
      if (!s.ok) return s;
      const allowed = checkMutationAllowed(s.value.description, 'cancel');
      if (!allowed.ok) return allowed;
      const { dialect } = s.value;
      return taskCall(s.value, dialect.methods.cancel, dialect.cancelParams(taskId, checked.value), 'mutation', { taskId });
    },

    control: createControlClient(caller),

    async close(): Promise<void> {
      if (!target.ok || closed) return;
      closed = true;
      await Promise.all([target.http.close(), target.control.close()]);
    },
  };
}
