/**
 * The parent's handle on one replica child (`replica-child.ts`): forked with an IPC channel,
 * its stderr passed through with a prefix (the child logs nothing of its own; a crash shows),
 * requests answered in order, and a real `SIGKILL`.
 * @module
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tracked } from './child-processes.js';

/** dist/bench/replica-proc.js → dist/bench/replica-child.js */
export const REPLICA_CHILD_PATH = fileURLToPath(new URL('./replica-child.js', import.meta.url));

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class ReplicaProc {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(readonly index: number) {
    // Only PATH: the child needs no secret; the database URL travels in the init request.
    this.child = tracked(fork(REPLICA_CHILD_PATH, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { PATH: process.env.PATH } }));
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim()) process.stderr.write(`[replica ${index}] ${line}\n`);
    });
    this.child.on('message', (msg: { id: number; ok: boolean; value?: unknown; error?: string }) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.ok) p.resolve(msg.value);
      else p.reject(new Error(`replica ${index}: ${msg.error}`));
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        for (const p of this.pending.values()) {
          clearTimeout(p.timer);
          p.reject(new Error(`replica ${index} exited (${signal ?? code}) before it answered`));
        }
        this.pending.clear();
        resolve({ code, signal });
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  call<T>(cmd: string, extra: Record<string, unknown> = {}, timeoutMs = 10 * 60_000): Promise<T> {
    if (!this.alive) return Promise.reject(new Error(`replica ${this.index} is not running`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`replica ${this.index}: ${cmd} got no answer in ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.child.send({ id, cmd, ...extra });
    });
  }

  /** SIGKILL now, and wait for the exit. */
  async kill(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Asks it to stop (releasing its rights); SIGKILL if it does not exit within `graceMs`. */
  async stop(graceMs = 20_000): Promise<void> {
    if (!this.alive) return;
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.call('stop', {}, graceMs).catch(() => undefined);
    await this.exited;
    clearTimeout(timer);
  }
}
