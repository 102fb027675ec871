/**
 * `/health` (the authenticated `POST .../health`) reports what model decisions lack, by name
 * only: which of backend / Argus python / Argus runtime is missing, and whether Foreman is
 * enabled and available. Never a path, never a secret. The runtime behind it is the one the
 * supervisor built from its config; nothing is started to find out.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer, listen, API_PREFIX } from '../../server/http-server.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { createScope, httpCall, startTestSupervisor, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('/health decisions', () => {
  it('names every missing part over HTTP and never a path or a secret', async () => {
    const stateRoot = await tempStateRoot(scope);
    const key = canary('health-api-key');
    const token = canary('health-ot-token');
    const pythonPath = path.join(stateRoot, 'no-such-venv', 'bin', 'python');
    const { logger } = captureLogs();
    const { supervisor } = await startTestSupervisor(scope, {
      stateRoot,
      apiKey: key,
      token,
      logger,
      extra: { ARGUS_SUPERVISOR_ARGUS_PYTHON: pythonPath, ARGUS_SUPERVISOR_FOREMAN_ENABLED: '1', ARGUS_SUPERVISOR_FOREMAN_PYTHON: pythonPath },
    });
    const app = scope.defer(createHttpServer({ supervisor, apiKey: key, logger }), (a) => a.close());
    const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
    const res = await httpCall(`${base}${API_PREFIX}/health`, { body: {}, headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.json.decisions).toEqual({
      argus: { available: false, missing: ['backend', 'argus_python', 'argus_runtime'] },
      foreman: { enabled: true, available: false, missing: ['foreman_python', 'foreman_runtime'] },
    });
    for (const hidden of [pythonPath, stateRoot, key, token]) expect(res.text).not.toContain(hidden);
    // The library surface says the same.
    expect(supervisor.health().decisions).toEqual(res.json.decisions);
  });

  it('with a backend and this node binary as the interpreter, only the Argus runtime is missing; Foreman off', async () => {
    const stateRoot = await tempStateRoot(scope);
    const { supervisor } = await startTestSupervisor(scope, { stateRoot, extra: { ARGUS_SUPERVISOR_BACKEND: 'codex', ARGUS_SUPERVISOR_ARGUS_PYTHON: process.execPath } });
    expect(supervisor.health().decisions).toEqual({
      argus: { available: false, missing: ['argus_runtime'] },
      foreman: { enabled: false, available: false, missing: ['foreman_python', 'foreman_runtime'] },
    });
    expect(supervisor.health().configured.backend).toBe(true);
  });
});
