/**
 * The demo's operator face: the decided campaign's supervisor served the way `serve` serves
 * one (the same HTTP server, page, event stream and local key), on 127.0.0.1, so a person can
 * watch the story on the page and follow it with the CLI client. The key is the generated
 * local one, in the demo's own state root; only its path is printed, never its value.
 *
 * With `--keep` the demo then stays up: a heartbeat of its own sweeps the served campaigns
 * every two seconds (the page updates live) until SIGINT or SIGTERM.
 * @module
 */
import { silentLogger } from '../../adapters/logger.js';
import { createHttpServer, listen } from '../../server/http-server.js';
import type { SupervisorConfig } from '../../services/config/config.js';
import { withLocalKey } from '../../services/runtime/local-key.js';
import type { Supervisor } from '../../services/runtime/supervisor.js';

export interface ServedPage {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  /** The generated local key's file (mode 0600). */
  keyFile: string;
  /** The state root the CLI client reads the key from (ARGUS_SUPERVISOR_STATE_ROOT). */
  stateRoot: string;
  close(): Promise<void>;
}

/** Serves `supervisor` on 127.0.0.1:`port` (0: a free port) with its state root's local key. */
export async function servePage(supervisor: Supervisor, config: SupervisorConfig, port: number): Promise<ServedPage> {
  const { config: keyed, localKey } = await withLocalKey({ ...config, apiKey: null, apiKeySource: 'missing' });
  if (!localKey || keyed.apiKey === null) throw new Error('the demo could not make its local API key');
  const app = createHttpServer({ supervisor, apiKey: keyed.apiKey, logger: silentLogger() });
  const address = await listen(app, { kind: 'tcp', host: '127.0.0.1', port });
  return { url: address.replace(/\/$/, ''), keyFile: localKey.path, stateRoot: config.stateRoot, close: () => app.close() };
}

/** Sweeps every `intervalMs` until stopped: the demo's own heartbeat while it stays up. */
export function keepSweeping(supervisor: Supervisor, intervalMs = 2000): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void supervisor
      .sweep()
      .catch(() => undefined)
      .finally(() => {
        busy = false;
      });
  }, intervalMs);
  return () => clearInterval(timer);
}

/** Resolves on the first SIGINT or SIGTERM. */
export function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    const done = (signal: string) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(signal);
    };
    const onInt = () => done('SIGINT');
    const onTerm = () => done('SIGTERM');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
  });
}
