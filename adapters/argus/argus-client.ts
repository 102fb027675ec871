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

export function createArgusBridge(opts: ArgusBridgeOptions): ArgusBridge {
  const timeoutMs = opts.callTimeoutMs ?? DEFAULT_ARGUS_CALL_TIMEOUT_MS;
  const secrets = opts.secrets ?? [];
  const log = (line: string) => opts.log?.(sanitizeRemoteText(line, secrets, ARGUS_TEXT_CAPS.summary));
  let child: Child | null = null;
  let closed = false;
  // The stderr budget, per bridge: lines past it are counted, and the count is logged once.
  let windowStart = Date.now();
  let windowLines = 0;
  let dropped = 0;
  const flushDropped = () => {
    if (dropped > 0) log(`argus stderr: ${dropped} further lines were not logged (over ${MAX_STDERR_LINES_PER_MINUTE} a minute)`);
    dropped = 0;
  };
  const stderrLine = (line: string) => {
    const now = Date.now();
    if (now - windowStart >= 60_000) {
      flushDropped();
      windowStart = now;
      windowLines = 0;
    }
    if (windowLines < MAX_STDERR_LINES_PER_MINUTE) {
      windowLines++;
      log(`argus stderr: ${line}`);
    } else dropped++;
  };

  function start(mcp: McpSdk): Child {
    if (child) return child;
    const transport = new GroupChildTransport({ command: opts.command, args: opts.args, env: { ...mcp.defaultEnv(), ...opts.env }, cwd: opts.cwd, validate: mcp.validate });
    let pending = '';
    transport.stderr.on('data', (chunk: Buffer | string) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = (lines.pop() ?? '').slice(-MAX_STDERR_LINE);
      for (const line of lines) if (line.trim() !== '') stderrLine(line);
    });
    const client = new mcp.Client({ name: 'argus-supervisor', version: '0.1.0' }, { capabilities: {} });
    const entry: Child = { client, transport, ready: Promise.resolve() };
    client.onclose = () => {
      if (child === entry) child = null;
      flushDropped();
      log('argus child exited');
    };
    client.onerror = (e) => log(`argus transport: ${e.message}`);
    entry.ready = client.connect(transport, { timeout: timeoutMs });
    entry.ready.catch(() => {
      if (child === entry) child = null;
      void transport.close().catch(() => undefined);
    });
    child = entry;
    return entry;
  }

  async function call<T>(tool: string, args: Record<string, unknown>, parse: (raw: unknown) => Outcome<T>, isModelCall = false): Promise<Outcome<T>> {
    if (closed) return fail('argus_unavailable', 'The Argus bridge is closed.');
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
        entry = start(mcp);
        await entry.ready;
      } catch (e) {
        log(`argus child did not start: ${(e as Error).message}`);
        return fail('argus_unavailable', 'The Argus process could not be started.');
      }
      if (abort.signal.aborted) return fail('argus_timeout', 'Argus did not start within the decision budget.');
      if (isModelCall) opts.onModelCall?.();
      let result: Record<string, unknown>;
      try {
        result = (await entry.client.callTool({ name: tool, arguments: args }, undefined, { signal: abort.signal, timeout: timeoutMs })) as Record<string, unknown>;
      } catch (e) {
        if (mcp.isRequestTimeout(e)) return fail('argus_timeout', `Argus did not answer ${tool} within the decision budget.`);
        if (abort.signal.aborted) return fail('argus_timeout', `Argus did not answer ${tool} within the decision budget.`);
        if (mcp.isDuplicateKey(e)) return fail('argus_bad_result', `Argus answered ${tool} with a key written twice.`);
        log(`argus ${tool} failed: ${(e as Error).message}`);
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

  const projectArg = (projectId: string) => isRemoteIdentifier(projectId, secrets);
  const badProject = <T>() => Promise.resolve(fail<T>('invalid_project_id', 'The Argus project id is not a plain identifier.'));

  return {
    createProject: (workdir, name) => call('argus_project_create', { workdir, name }, (raw) => parseProjectCreate(raw, secrets)),
    message: (projectId, text) =>
      projectArg(projectId) ? call('argus_message', { project_id: projectId, text }, (raw) => parseMessage(raw, secrets), true) : badProject(),
    status: (projectId) => (projectArg(projectId) ? call('argus_status', { project_id: projectId }, (raw) => parseStatus(raw, secrets)) : badProject()),
    stop: (projectId, force = false) => (projectArg(projectId) ? call('argus_stop', { project_id: projectId, force }, parseStop) : badProject()),
    async close() {
      closed = true;
      const current = child;
      child = null;
      if (!current) return;
      // The transport sends SIGTERM to the child's process group at once (a hung turn must not
      // hold shutdown), then SIGKILL after a grace: the child and everything it started in its
      // group are gone when this resolves. A daemon Argus starts in a session of its own
      // (setsid) is not in that group and survives, as intended.
      await current.transport.close().catch(() => undefined);
      await current.client.close().catch(() => undefined);
    },
  };
}
