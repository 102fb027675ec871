/**
 * The MCP stdio transport to the Argus child, ours instead of the SDK's StdioClientTransport
 * for two reasons. The child leads its own process group (`detached: true`, adapters/
 * process-group.ts), so closing the bridge stops whatever it started too; the SDK's transport
 * spawns in our group and signals the child alone. And every line is parsed strictly: a
 * message with a key written twice (a forged verdict the SDK's JSON.parse would read one way
 * and a person another) is never delivered. A response is replaced by a JSON-RPC error with
 * DUPLICATE_KEY_ERROR, which the bridge reports as `argus_bad_result`; anything else is dropped.
 * Framing is the SDK's: one JSON-RPC message per line, a line over the cap ends the child.
 * @module
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { killProcessGroup } from '../process-group.js';
import { parseStrictJson } from './strict-json.js';

/** JSON-RPC error code (implementation-defined range) for a message that repeats a key. */
export const DUPLICATE_KEY_ERROR = -32_090;
/** What the SDK buffers at most before giving up on a line (STDIO_DEFAULT_MAX_BUFFER_SIZE). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;
/** How long a closing child gets after stdin EOF and SIGTERM before its group is killed. */
export const CLOSE_GRACE_MS = 2_000;

export interface ChildTransportOptions {
  command: string;
  args: string[];
  /** The whole environment of the child. */
  env: Record<string, string>;
  cwd: string;
  /** The SDK's message schema (loaded lazily with the SDK), so a malformed message is refused as the SDK would. */
  validate: (value: unknown) => JSONRPCMessage;
}

export class GroupChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The child's stderr, readable before start so no early line is lost. */
  readonly stderr = new PassThrough();
  private child: ChildProcessWithoutNullStreams | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private exited: Promise<void> = Promise.resolve();

  constructor(private readonly opts: ChildTransportOptions) {}

  /** The child's pid (its process group id too) once started, else null. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('the Argus transport is already started'));
    return new Promise((resolve, reject) => {
      const child = spawn(this.opts.command, this.opts.args, { env: this.opts.env, cwd: this.opts.cwd, stdio: ['pipe', 'pipe', 'pipe'], shell: false, detached: true });
      this.child = child;
      // 'close' too: a child that never spawned (ENOENT) has no 'exit'.
      this.exited = new Promise((done) => {
        child.once('exit', () => done());
        child.once('close', () => done());
      });
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      // The leader is gone: whatever it left in its group goes too, which also closes the pipes
      // a grandchild inherited, so 'close' can follow.
      child.once('exit', () => killProcessGroup(child.pid, 'SIGKILL'));
      child.once('close', () => {
        if (this.child === child) this.child = null;
        this.onclose?.();
      });
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
      child.stderr.pipe(this.stderr);
    });
  }

  private receive(chunk: Buffer): void {
    if (this.buffer.length + chunk.length > MAX_LINE_BYTES) {
      this.buffer = Buffer.alloc(0);
      this.onerror?.(new Error(`the Argus child sent a line over ${MAX_LINE_BYTES} bytes`));
      void this.close();
      return;
    }
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (let end = this.buffer.indexOf(0x0a); end !== -1; end = this.buffer.indexOf(0x0a)) {
      const line = this.buffer.toString('utf8', 0, end).replace(/\r$/, '');
      this.buffer = this.buffer.subarray(end + 1);
      this.deliver(line);
    }
  }

  private deliver(line: string): void {
    const parsed = parseStrictJson(line);
    if (!parsed.ok && parsed.code === 'duplicate_key') {
      const id = responseId(JSON.parse(line) as unknown);
      if (id === undefined) return this.onerror?.(new Error('the Argus child sent a message with a repeated key; it was dropped'));
      return this.onmessage?.({ jsonrpc: '2.0', id, error: { code: DUPLICATE_KEY_ERROR, message: 'the answer repeats a key' } });
    }
    try {
      if (!parsed.ok) throw new Error('the Argus child sent a line that is not JSON');
      this.onmessage?.(this.opts.validate(parsed.value));
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /**
   * stdin EOF and SIGTERM to the group at once (a hung turn must not hold shutdown), up to
   * CLOSE_GRACE_MS for the child to leave, then SIGKILL to the group: resolved, nothing the
   * child started is left running.
   */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    try {
      child.stdin.end();
    } catch {
      // already closed
    }
    const pid = child.pid;
    if (child.exitCode === null && child.signalCode === null) {
      killProcessGroup(pid, 'SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
      clearTimeout(timer);
    }
    killProcessGroup(pid, 'SIGKILL');
    // SIGKILL cannot be ignored: the exit follows at once; the bound only guards a wedged kernel.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    this.buffer = Buffer.alloc(0);
  }
}

/** The id of a JSON-RPC response (it has `result` or `error`), else undefined. */
function responseId(message: unknown): string | number | undefined {
  if (!message || typeof message !== 'object') return undefined;
  const m = message as Record<string, unknown>;
  if (!('result' in m) && !('error' in m)) return undefined;
  return typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
}
