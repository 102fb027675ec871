/**
 * The CLI client over a Unix socket (a sidecar serve): ARGUS_SUPERVISOR_SOCKET alone points it
 * there, with the local key serve wrote for that listener.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canary } from '../fixtures/canary.js';
import { createScope, spawnServe, tempStateRoot } from '../fixtures/supervisor-harness.js';
import { runCli } from './cli-harness.js';

const scope = createScope();
afterAll(() => scope.dispose());

describe('the client over a Unix socket', () => {
  it('status and campaigns create/list reach a serve that listens on a socket', async () => {
    const stateRoot = await tempStateRoot(scope);
    const socket = path.join(stateRoot, 'sup.sock');
    await spawnServe(scope, { ARGUS_SUPERVISOR_STATE_ROOT: stateRoot, ARGUS_SUPERVISOR_SOCKET: socket }, canary('cli-socket-placeholder'));
    const env = { ARGUS_SUPERVISOR_SOCKET: socket, ARGUS_SUPERVISOR_STATE_ROOT: stateRoot };
    const status = await runCli(['status'], env);
    expect(status.stderr).toBe('');
    expect(status.stdout).toMatch(new RegExp(`^supervisor  unix:${socket.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}  disabled`, 'm'));
    expect(status.stdout).toMatch(/^key source  generated_local$/m);
    const created = await runCli(['campaigns', 'create', '--id', 'sock-1', '--objective', 'o', '--json'], env);
    expect(JSON.parse(created.stdout)).toMatchObject({ ok: true, campaign: { campaign_id: 'sock-1' } });
    const list = await runCli(['campaigns', 'list', '--wide'], env);
    expect(list.stdout).toMatch(/^sock-1\s+observing\s+idle\s+ok\s+-\s+-\s+-$/m);
    const gone = await runCli(['status'], { ...env, ARGUS_SUPERVISOR_SOCKET: path.join(stateRoot, 'none.sock') });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^server_unreachable: unix:.*none\.sock \(ENOENT\)\n$/);
  });
});
