/**
 * The public shape of the A2A client: what a campaign actor can ask of a remote.
 * @module
 */
import type { Logger } from '../logger.js';
import type { ControlAuthority, LeaseResult, RequestReadback } from './control-contract.js';
import type { RemoteDescription } from './discovery.js';
import type { Result } from './errors.js';
import type { ListTasksRequest, TaskPage } from './list-tasks.js';
import type { TaskSnapshot } from './snapshot.js';

export interface A2AClientOptions {
  /** e.g. `http://127.0.0.1:8080/a2a`; must carry no credential (no userinfo, no token query). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer` and `X-API-KEY`; the caller reads OPENTRAINING_A2A_TOKEN. */
  token?: string;
  /**
   * Bounded waits; defaults 3 s to connect, 10 s for headers, 10 s between body chunks, and
   * 30 s for the whole request (connect + headers + body), whatever the chunks do.
   */
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number; overallMs?: number };
  /** Response-size cap, default 1 MiB. */
  maxBodyBytes?: number;
  logger?: Logger;
  /** Keep-alive sockets to the remote for status reads, default 64 (lease and mutation calls have their own few). */
  connections?: number;
  /** Other configured secrets (e.g. our own API key) to redact from anything the remote sends. */
  redact?: readonly string[];
  /** Called after every JSON-RPC request with its method, `ok` or the error code, and seconds. */
  onRequest?: (method: string, outcome: string, seconds: number) => void;
}

export interface SubmitRequest {
  /** The instruction for the new attempt. Authority never goes here: it rides in metadata. */
  text: string;
  /** The leased context; omitted only when the remote opens a fresh one. */
  contextId?: string;
  authority: ControlAuthority;
}

/** A reply to the remote's own question: one fenced SendMessage to the existing task. */
export interface ReplyRequest {
  /** The task that asked (input-required); the answer must be about this very task. */
  taskId: string;
  /** Its context, the one the lease covers. */
  contextId: string;
  /** The operator's answer. Authority never goes here: it rides in metadata. */
  text: string;
  authority: ControlAuthority;
}

export interface LeaseClaimRequest {
  contextId?: string;
  controllerId: string;
  ttlSeconds: number;
  requestId: string;
}

export interface LeaseRenewRequest {
  contextId: string;
  controllerId: string;
  epoch: number;
  ttlSeconds: number;
  requestId: string;
}

export interface LeaseReleaseRequest {
  contextId: string;
  controllerId: string;
  epoch: number;
  requestId: string;
}

export interface InterveneRequest {
  taskId: string;
  instruction: string;
  authority: ControlAuthority;
}

export interface InterveneResult {
  requestId: string;
  status: 'applied';
}

/** The control extension's methods (docs/control-extension.md). */
export interface A2AControl {
  leaseGet(req: { contextId: string }): Promise<Result<LeaseResult>>;
  leaseClaim(req: LeaseClaimRequest): Promise<Result<LeaseResult>>;
  leaseRenew(req: LeaseRenewRequest): Promise<Result<LeaseResult>>;
  leaseRelease(req: LeaseReleaseRequest): Promise<Result<LeaseResult>>;
  intervene(req: InterveneRequest): Promise<Result<InterveneResult>>;
  requestGet(req: { requestId: string }): Promise<Result<RequestReadback>>;
}

export interface A2AClient {
  /** Reads the agent card once; later calls return the cached description. */
  discover(): Promise<Result<RemoteDescription>>;
  /**
   * The heartbeat's one request: compact status, lease readback included when the remote has it.
   * An answer about another task, or (when `bound.contextId` is given) in another context, is
   * `remote_payload_invalid`: a failed read, never adopted.
   */
  getTask(taskId: string, bound?: { contextId?: string | null }): Promise<Result<TaskSnapshot>>;
  /**
   * One page of A2A 1.0 `ListTasks` (the fleet sweep's read): each task through the same
   * boundary as a GetTask answer. Absent on clients that cannot list (then: per-task reads).
   */
  listTasks?(req: ListTasksRequest): Promise<Result<TaskPage>>;
  /** Starts a new attempt without waiting for it (non-blocking send). Fenced. */
  submit(req: SubmitRequest): Promise<Result<TaskSnapshot>>;
  /**
   * Answers the task's question: one fenced SendMessage naming the task and its context, never
   * retried. The remote's answer must be that task in that context, else `remote_payload_invalid`.
   */
  reply(req: ReplyRequest): Promise<Result<TaskSnapshot>>;
  /** Fenced cancel of one task. */
  cancel(taskId: string, opts: { authority: ControlAuthority }): Promise<Result<TaskSnapshot>>;
  readonly control: A2AControl;
  /** Closes the keep-alive pool; later calls fail with `not_sent`. */
  close(): Promise<void>;
}
