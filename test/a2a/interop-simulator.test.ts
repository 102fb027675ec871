import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AClient, type A2AClient, type Result } from '../../adapters/a2a/index.js';
import { runProbe } from '../../bin/commands/probe.js';
import { RIVAL_CONTROLLER_ID, startSimulator, type RunningSimulator, type SimProtocol } from '../../simulator/index.js';
import { canary } from '../fixtures/canary.js';

const TOKEN = canary('remote-token');
const CONTROLLER = 'argus-openoperator';
const EXPECTED_VERSION: Record<SimProtocol, string> = { '1.0': '1.0', '0.3': '0.3', '0.2': '0.2.5' };

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

describe.each(['1.0', '0.3', '0.2'] as const)('bundled simulator, dialect %s', (protocol) => {
  let sim: RunningSimulator;
  let client: A2AClient;

  beforeAll(async () => {
    sim = await startSimulator({ protocol, token: TOKEN });
    client = createA2AClient({ baseUrl: sim.url, token: TOKEN });
  });
  afterAll(async () => {
    await client?.close();
    await sim?.close();
  });

  it('probes as fully fenced', async () => {
    const out = await runProbe({ url: sim.url, token: TOKEN });
    expect(out.exitCode).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ protocolVersion: EXPECTED_VERSION[protocol], controlExtension: true, mutationsEnabled: true, unsupported: [], auth: 'ok' });
    // `ok` (not `not_required`) rests on exactly one deliberate read without credentials.
    expect(sim.stats().unauthorized).toBe(1);
  });

  it('runs a whole controlled session: claim, readback, fenced submit/intervene/cancel, renew, request readback, release', async () => {
    const { ids, contextIds } = sim.createTasksDetailed(1);
    const taskId = ids[0] ?? '';
    const contextId = contextIds[0] ?? '';

    const before = value(await client.getTask(taskId));
    expect(before).toMatchObject({ id: taskId, contextId, state: 'working', control: { lease: null } });

    const claim = value(await client.control.leaseClaim({ contextId, controllerId: CONTROLLER, ttlSeconds: 600, requestId: `claim-${protocol}` }));
    const epoch = claim.lease?.epoch ?? -1;
    expect(claim.lease).toMatchObject({ contextId, holder: CONTROLLER, ttlSeconds: 600 });
    expect(epoch).toBeGreaterThanOrEqual(1);

    // The heartbeat's one request verifies authority too.
    expect(value(await client.getTask(taskId)).control?.lease).toMatchObject({ holder: CONTROLLER, epoch });
    expect(value(await client.control.leaseGet({ contextId })).lease).toMatchObject({ holder: CONTROLLER, epoch });

    const authority = (requestId: string) => ({ controllerId: CONTROLLER, epoch, requestId: `${requestId}-${protocol}` });
    const submitted = value(await client.submit({ text: 'start attempt 2', contextId, authority: authority('submit') }));
    expect(submitted).toMatchObject({ contextId, state: 'submitted', control: { attempt: 2 } });

    expect(value(await client.control.intervene({ taskId, instruction: 'halve the learning rate', authority: authority('intervene') }))).toEqual({
      requestId: `intervene-${protocol}`,
      status: 'applied',
    });
    expect(value(await client.cancel(taskId, { authority: authority('cancel') })).state).toBe('canceled');

    const renewed = value(await client.control.leaseRenew({ contextId, controllerId: CONTROLLER, epoch, ttlSeconds: 900, requestId: `renew-${protocol}` }));
    expect(renewed.lease).toMatchObject({ epoch, ttlSeconds: 900 });

    expect(value(await client.control.requestGet({ requestId: `submit-${protocol}` }))).toMatchObject({ status: 'applied', action: 'submit', taskId: submitted.id });
    expect(value(await client.control.requestGet({ requestId: `never-sent-${protocol}` }))).toEqual({ requestId: `never-sent-${protocol}`, status: 'not_applied' });

    expect(value(await client.control.leaseRelease({ contextId, controllerId: CONTROLLER, epoch, requestId: `release-${protocol}` })).lease).toBeNull();

    const stats = sim.stats();
    expect(stats.mutationsApplied).toMatchObject({ submit: 1, cancel: 1, intervene: 1, claim: 1, renew: 1, release: 1 });
    expect(stats.extensionNotActivated).toBe(0);
    expect(stats.unauthorized).toBe(1); // the probe's one read without credentials, nothing since
  });

  it('a fenced mutation after a rival takeover is rejected by the remote with a lease code', async () => {
    const { ids, contextIds } = sim.createTasksDetailed(1);
    const contextId = contextIds[0] ?? '';
    const claim = value(await client.control.leaseClaim({ contextId, controllerId: CONTROLLER, ttlSeconds: 600, requestId: `claim2-${protocol}` }));
    const epoch = claim.lease?.epoch ?? -1;
    sim.takeover(contextId, RIVAL_CONTROLLER_ID);

    const readback = value(await client.getTask(ids[0] ?? ''));
    expect(readback.control?.lease?.holder).toBe(RIVAL_CONTROLLER_ID);
    expect(readback.control?.lease?.epoch).toBeGreaterThan(epoch);

    const stale = await client.cancel(ids[0] ?? '', { authority: { controllerId: CONTROLLER, epoch, requestId: `stale-${protocol}` } });
    expect(stale.ok).toBe(false);
    if (!stale.ok) {
      expect(['lease_stale_epoch', 'lease_not_held']).toContain(stale.error.code);
      expect(stale.error.outcome).toBe('rejected');
    }
    const renew = await client.control.leaseRenew({ contextId, controllerId: CONTROLLER, epoch, ttlSeconds: 600, requestId: `renew2-${protocol}` });
    expect(!renew.ok && ['lease_stale_epoch', 'lease_not_held'].includes(renew.error.code)).toBe(true);
  });

  it('a read-only simulator (control off) receives no mutation at all', async () => {
    const readOnly = await startSimulator({ protocol, token: TOKEN, control: false });
    const c = createA2AClient({ baseUrl: readOnly.url, token: TOKEN });
    try {
      const d = value(await c.discover());
      expect(d).toMatchObject({ controlExtension: false, mutationsEnabled: false });
      const [taskId = ''] = readOnly.createTasks(1);
      expect(value(await c.getTask(taskId)).state).toBe('working');
      const authority = { controllerId: CONTROLLER, epoch: 1, requestId: 'ro-1' };
      for (const r of [
        await c.submit({ text: 'go', authority }),
        await c.cancel(taskId, { authority }),
        await c.control.intervene({ taskId, instruction: 'x', authority }),
        await c.control.leaseClaim({ controllerId: CONTROLLER, ttlSeconds: 600, requestId: 'ro-2' }),
      ]) {
        expect(!r.ok && r.error.code === 'unsupported_capability' && r.error.outcome === 'not_sent').toBe(true);
      }
      const stats = readOnly.stats();
      expect(Object.values(stats.mutationsApplied).every((n) => n === 0)).toBe(true);
      const methods = Object.keys(stats.requests);
      for (const m of methods) expect(m).not.toMatch(/send|cancel|Send|Cancel|opentraining\.control/);
    } finally {
      await c.close();
      await readOnly.close();
    }
  });
});
