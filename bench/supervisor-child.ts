/**
 * A real supervisor process (`argus-supervisor serve`) for the chaos qualification: started
 * with its own state root, driven over HTTP, and killed with SIGKILL.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { tracked } from './child-processes.js';
import { CLI_PATH } from './sim-child.js';

export interface SupervisorChild {
  baseUrl: string;
  process: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The answer, or null when the process died mid-request (or `signal` gave up on it). */
  call(route: 'campaigns' | 'campaign_action' | 'status', body: unknown, signal?: AbortSignal): Promise<{ status: number; body: any } | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** A test passes its own canary (ARGUS_CHAOS_API_KEY) so the end-of-run scan looks for it; else a fresh one. */
export const CHAOS_API_KEY = process.env.ARGUS_CHAOS_API_KEY || `chaos-${randomBytes(12).toString('hex')}`;

export async function spawnSupervisor(opts: {
  stateRoot: string;
  remoteUrl: string;
  faultPoint?: string;
  /** More environment (the replica settings of `chaos --replicas`). */
  env?: Record<string, string>;
  /** How long to wait for the readiness line (default 20 s). */
  readyTimeoutMs?: number;
}): Promise<SupervisorChild> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    ARGUS_SUPERVISOR_ENABLED: '1',
    ARGUS_SUPERVISOR_STATE_ROOT: opts.stateRoot,
    OPENTRAINING_A2A_URL: opts.remoteUrl,
    ARGUS_SUPERVISOR_API_KEY: CHAOS_API_KEY,
    // Long enough that no scheduled tick lands inside a run; the lease TTL must cover two.
    ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: '300',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    ...(opts.faultPoint ? { ARGUS_SUPERVISOR_FAULT_POINT: opts.faultPoint } : {}),
    ...opts.env,
  };
  const child = tracked(spawn(process.execPath, [CLI_PATH, 'serve'], { stdio: ['ignore', 'pipe', 'pipe'], env }));
  let stderrTail = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c: string) => {
    stderrTail = (stderrTail + c).slice(-4096);
    // Kept whole beside the state it came from, so a scan of the state root sees it too.
    appendFileSync(join(opts.stateRoot, 'serve.stderr.log'), c, { mode: 0o600 });
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // never left running behind a failed start
      reject(new Error(`supervisor did not start within ${opts.readyTimeoutMs ?? 20_000} ms: ${stderrTail}`));
    }, opts.readyTimeoutMs ?? 20_000);
    rl.once('line', (l) => {
      clearTimeout(timer);
      resolve(l);
    });
    void exited.then(() => reject(new Error(`supervisor exited before ready: ${stderrTail}`)));
  });
  const { address } = JSON.parse(line) as { address: string };
  const baseUrl = address.replace('[::1]', '127.0.0.1');

  return {
    baseUrl,
    process: child,
    exited,
    async call(route, body, signal) {
      try {
        const res = await fetch(`${baseUrl}/api/plugins/argus_supervisor/${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': CHAOS_API_KEY },
          body: JSON.stringify(body),
          signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(20_000)]) : AbortSignal.timeout(20_000),
        });
        return { status: res.status, body: await res.json() };
      } catch {
        // The process died mid-request: that is the point of a chaos run.
        return null;
      }
    },
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
