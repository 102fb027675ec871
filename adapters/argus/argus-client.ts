/**
 * The Argus bridge: one MCP client over stdio to Argus's own MCP server
 * (`<python> -m argus_skill.plugin.mcp_server`, FastMCP). That module registers only the seven
 * `argus_*` tools and runs the stdio loop; nothing it serves starts Argus's web server
 * (`webapi.server`) or the TUI, which are separate entry points we never run. The child's argv
 * is fixed by the caller and carries no data: every value travels as a tool argument, and
 * none may contain one of our secrets. One child per bridge, started on first use and again
 * after it exits; each call is bounded by the decision budget (`callTimeoutMs`).
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isRemoteIdentifier, sanitizeRemoteText } from '../a2a/sanitize.js';
import { containsSecret } from './argus-env.js';
import { DUPLICATE_KEY_ERROR, GroupChildTransport } from './child-transport.js';
import { parseStrictJson } from './strict-json.js';
import {
  ARGUS_TEXT_CAPS,
  fail,
  parseMessage,
  parseProjectCreate,
  parseStatus,
  parseStop,
  toolFailure,
  type ArgusStatus,
  type ArgusTurn,
  type Outcome,
} from './argus-results.js';

export const DEFAULT_ARGUS_CALL_TIMEOUT_MS = 120_000;
/** A tool result larger than this is not one Argus's bounded tools would send. */
const MAX_RESULT_CHARS = 1_048_576;
/** Bytes of a stderr line we keep waiting for its newline. */
const MAX_STDERR_LINE = 4_096;
/** Stderr lines logged per minute: a child that floods stderr must not flood our log. */
export const MAX_STDERR_LINES_PER_MINUTE = 100;

export interface ArgusBridgeOptions {
  command: string;
  args: string[];
  /** The whole child environment (buildArgusEnv); it overrides every SDK default. */
  env: Record<string, string>;
  cwd: string;
  /** The decision budget of one call, child start included. */
  callTimeoutMs?: number;
  /** Called once per `argus_message` actually sent (a turn that then times out still counts). */
  onModelCall?: () => void;
  /** One sanitized line per child stderr line and per lifecycle event. */
  log?: (line: string) => void;
  /** Redacted from everything Argus sends back, and refused in any tool argument. */
  secrets?: string[];
}

export interface ArgusBridge {
  createProject(workdir: string, name: string): Promise<Outcome<{ projectId: string }>>;
  message(projectId: string, text: string): Promise<Outcome<ArgusTurn>>;
  status(projectId: string): Promise<Outcome<ArgusStatus>>;
  stop(projectId: string, force?: boolean): Promise<Outcome<{ stopped: boolean }>>;
  close(): Promise<void>;
}

interface Child {
  client: Client;
  transport: GroupChildTransport;
  ready: Promise<void>;
}

/**
 * The MCP SDK, loaded on the first call, not at import: its schemas cost ~28 MB of RSS
 * (measured: +27.6 MB RSS, +8.5 MB heap), which a supervisor without a decision ever made
 * (no backend configured, or 10,000 campaigns that never met Argus) should not carry.
 */
let sdk: Promise<McpSdk> | null = null;
interface McpSdk {
  Client: typeof Client;
  /** The variables the SDK's own stdio transport passes down (HOME, PATH, ...), under `env`. */
  defaultEnv(): Record<string, string>;
  validate(value: unknown): JSONRPCMessage;
  isRequestTimeout(e: unknown): boolean;
  isDuplicateKey(e: unknown): boolean;
}
const loadSdk = (): Promise<McpSdk> =>
  (sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([client, stdio, types]) => ({
    Client: client.Client,
    defaultEnv: stdio.getDefaultEnvironment,
    validate: (value: unknown) => types.JSONRPCMessageSchema.parse(value),
    isRequestTimeout: (e: unknown) => e instanceof types.McpError && e.code === types.ErrorCode.RequestTimeout,
    isDuplicateKey: (e: unknown) => e instanceof types.McpError && e.code === DUPLICATE_KEY_ERROR,
  })));

/** The tool's payload: FastMCP sends a dict as `structuredContent` and as JSON text. */
function payloadOf(result: Record<string, unknown>): unknown {
  if (result.structuredContent && typeof result.structuredContent === 'object') return result.structuredContent;
  const content = Array.isArray(result.content) ? result.content : [];
  const first = content.find((c): c is { type: 'text'; text: string } => !!c && typeof c === 'object' && c.type === 'text' && typeof c.text === 'string');
  if (!first || first.text.length > MAX_RESULT_CHARS) return undefined;
  // A key written twice reads one way here and another to a person: not a payload at all.
  const parsed = parseStrictJson(first.text);
  return parsed.ok ? parsed.value : undefined;
}

const badProject = <T>() => Promise.resolve(fail<T>('invalid_project_id', 'The Argus project id is not a plain identifier.'));

export function createArgusBridge(opts: ArgusBridgeOptions): ArgusBridge {
  return new StdioArgusBridge(opts);
}

/**
 * The bridge over one child at a time, speaking MCP on its stdio. The interface's members are
 * arrow properties, not prototype methods: callers wrap the bridge and pass its methods around,
 * so each must be an own property bound to this instance, as in the object literal this replaced.
 */
export class StdioArgusBridge implements ArgusBridge {
  private readonly timeoutMs: number;
  readonly #secrets: string[];
  #child: Child | null = null;
  private closed = false;
  // The stderr budget, per bridge: lines past it are counted, and the count is logged once.
  private windowStart = Date.now();
  private windowLines = 0;
  private dropped = 0;

  /** Held in a true private field, with the token and secrets: a copied or logged client shows none of them. */
  readonly #opts: ArgusBridgeOptions;

  constructor(opts: ArgusBridgeOptions) {
    this.#opts = opts;
    this.timeoutMs = opts.callTimeoutMs ?? DEFAULT_ARGUS_CALL_TIMEOUT_MS;
    this.#secrets = opts.secrets ?? [];
  }

  readonly createProject: ArgusBridge['createProject'] = (workdir, name) =>
    this.call('argus_project_create', { workdir, name }, (raw) => parseProjectCreate(raw, this.#secrets));

  readonly message: ArgusBridge['message'] = (projectId, text) =>
    this.projectArg(projectId) ? this.call('argus_message', { project_id: projectId, text }, (raw) => parseMessage(raw, this.#secrets), true) : badProject();

  readonly status: ArgusBridge['status'] = (projectId) =>
    this.projectArg(projectId) ? this.call('argus_status', { project_id: projectId }, (raw) => parseStatus(raw, this.#secrets)) : badProject();

  readonly stop: ArgusBridge['stop'] = (projectId, force = false) =>
    this.projectArg(projectId) ? this.call('argus_stop', { project_id: projectId, force }, parseStop) : badProject();

  readonly close: ArgusBridge['close'] = async () => {
    this.closed = true;
    const current = this.#child;
    this.#child = null;
    if (!current) return;
    // The transport sends SIGTERM to the child's process group at once (a hung turn must not
    // hold shutdown), then SIGKILL after a grace: the child and everything it started in its
    // group are gone when this resolves. A daemon Argus starts in a session of its own
    // (setsid) is not in that group and survives, as intended.
    await current.transport.close().catch(() => undefined);
    await current.client.close().catch(() => undefined);
  };

  private log(line: string): void {
    this.#opts.log?.(sanitizeRemoteText(line, this.#secrets, ARGUS_TEXT_CAPS.summary));
  }

  private flushDropped(): void {
    if (this.dropped > 0) this.log(`argus stderr: ${this.dropped} further lines were not logged (over ${MAX_STDERR_LINES_PER_MINUTE} a minute)`);
    this.dropped = 0;
  }

  private stderrLine(line: string): void {
    const now = Date.now();
    if (now - this.windowStart >= 60_000) {
      this.flushDropped();
      this.windowStart = now;
      this.windowLines = 0;
    }
    if (this.windowLines < MAX_STDERR_LINES_PER_MINUTE) {
      this.windowLines++;
      this.log(`argus stderr: ${line}`);
    } else this.dropped++;
  }

  /** The running child, or a new one; a child that exits or fails to connect is forgotten. */
  private start(mcp: McpSdk): Child {
    if (this.#child) return this.#child;
    const opts = this.#opts;
    const transport = new GroupChildTransport({ command: opts.command, args: opts.args, env: { ...mcp.defaultEnv(), ...opts.env }, cwd: opts.cwd, validate: mcp.validate });
    let pending = '';
    transport.stderr.on('data', (chunk: Buffer | string) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = (lines.pop() ?? '').slice(-MAX_STDERR_LINE);
      for (const line of lines) if (line.trim() !== '') this.stderrLine(line);
    });
    const client = new mcp.Client({ name: 'argus-supervisor', version: '0.1.0' }, { capabilities: {} });
    const entry: Child = { client, transport, ready: Promise.resolve() };
    client.onclose = () => {
      if (this.#child === entry) this.#child = null;
      this.flushDropped();
      this.log('argus child exited');
    };
    client.onerror = (e) => this.log(`argus transport: ${e.message}`);
    entry.ready = client.connect(transport, { timeout: this.timeoutMs });
    entry.ready.catch(() => {
      if (this.#child === entry) this.#child = null;
      void transport.close().catch(() => undefined);
    });
    this.#child = entry;
    return entry;
  }

  private async call<T>(tool: string, args: Record<string, unknown>, parse: (raw: unknown) => Outcome<T>, isModelCall = false): Promise<Outcome<T>> {
    const { timeoutMs } = this;
    const secrets = this.#secrets;
    if (this.closed) return fail('argus_unavailable', 'The Argus bridge is closed.');
    const strings = Object.values(args).filter((v): v is string => typeof v === 'string');
    if (containsSecret(strings, secrets)) return fail('secret_in_argument', 'A credential of ours was about to reach Argus in a tool argument; the call was not made.');
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<Outcome<T>>((resolve) => {
      timer = setTimeout(() => {
        abort.abort();
        resolve(fail('argus_timeout', `Argus did not answer ${tool} within ${timeoutMs} ms; the call was abandoned.`));
      }, timeoutMs);
    });
    const work = (async (): Promise<Outcome<T>> => {
      let mcp: McpSdk;
      let entry: Child;
      try {
        mcp = await loadSdk();
        entry = this.start(mcp);
        await entry.ready;
      } catch (e) {
        this.log(`argus child did not start: ${(e as Error).message}`);
        return fail('argus_unavailable', 'The Argus process could not be started.');
      }
      if (abort.signal.aborted) return fail('argus_timeout', 'Argus did not start within the decision budget.');
      if (isModelCall) this.#opts.onModelCall?.();
      let result: Record<string, unknown>;
      try {
        result = (await entry.client.callTool({ name: tool, arguments: args }, undefined, { signal: abort.signal, timeout: timeoutMs })) as Record<string, unknown>;
      } catch (e) {
        if (mcp.isRequestTimeout(e)) return fail('argus_timeout', `Argus did not answer ${tool} within the decision budget.`);
        if (abort.signal.aborted) return fail('argus_timeout', `Argus did not answer ${tool} within the decision budget.`);
        if (mcp.isDuplicateKey(e)) return fail('argus_bad_result', `Argus answered ${tool} with a key written twice.`);
        this.log(`argus ${tool} failed: ${(e as Error).message}`);
        return fail('argus_unavailable', `The Argus process failed during ${tool}.`);
      }
      const payload = payloadOf(result);
      if (result.isError === true) {
        const detail = typeof payload === 'object' ? '' : sanitizeRemoteText(String((result.content as { text?: string }[] | undefined)?.[0]?.text ?? ''), secrets, ARGUS_TEXT_CAPS.error);
        return fail('argus_error', detail ? `Argus reported a tool error: ${detail}` : 'Argus reported a tool error.');
      }
      return toolFailure(payload, secrets) ?? parse(payload);
    })();
    try {
      return await Promise.race([work, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private projectArg(projectId: string): boolean {
    return isRemoteIdentifier(projectId, this.#secrets);
  }
}
