/**
 * The lease half of the control extension, in every dialect: claim / renew / release with
 * per-context epochs that only go up, expiry on the simulator's clock (no sleeping), and the
 * contract's error codes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_ERROR_CODES, CONTROL_EXTENSION_URI, CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { SIM_PROTOCOLS, startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { endpointOf, versionOf } from './endpoints.js';
import { call, errorCode } from './rpc.js';

describe.each(SIM_PROTOCOLS)('lease methods over the %s dialect', (protocol) => {
  let sim: RunningSimulator;
  let ep: string;
  const opts = { version: versionOf(protocol) };
  let seq = 0;
  const rid = () => `${protocol}-req-${++seq}`;
  const claim = (params: Record<string, unknown>) => call(ep, CONTROL_METHODS.leaseClaim, { ttlSeconds: 600, requestId: rid(), ...params }, opts);

  beforeAll(async () => {
    // A frozen base clock: only advanceClock moves time, so instants compare exactly.
    sim = await startSimulator({ protocol, clock: () => Date.UTC(2026, 0, 1) });
    ep = endpointOf(sim);
  });
  afterAll(() => sim.close());

  it('opens a fresh context on a claim without contextId, at epoch 1', async () => {
    const { lease, serverTime } = await claim({ controllerId: 'alpha' });
    expect(lease).toMatchObject({ holder: 'alpha', epoch: 1, ttlSeconds: 600 });
    expect(lease.contextId).toMatch(/^ctx-/);
    expect(Date.parse(lease.expiresAt) - Date.parse(serverTime)).toBe(600_000);
    const read = await call(ep, CONTROL_METHODS.leaseGet, { contextId: lease.contextId }, opts);
    expect(read.lease).toEqual(lease);
  });

  it('gives every claim a new epoch (the holder re-claiming too), refuses a rival, renews and releases', async () => {
    const first = (await claim({ controllerId: 'alpha' })).lease;
    const contextId = first.contextId;
    // A re-claim by the same controller id is a new grant: the earlier token goes stale.
    const reclaimed = (await claim({ contextId, controllerId: 'alpha', ttlSeconds: 900 })).lease;
    expect(reclaimed).toMatchObject({ epoch: first.epoch + 1, ttlSeconds: 900 });
    expect(await errorCode(ep, CONTROL_METHODS.leaseRenew, { contextId, controllerId: 'alpha', epoch: first.epoch, ttlSeconds: 600, requestId: rid() }, opts)).toBe(
      CONTROL_ERROR_CODES.leaseStaleEpoch,
    );
    expect(await errorCode(ep, CONTROL_METHODS.leaseClaim, { contextId, controllerId: 'beta', ttlSeconds: 600, requestId: rid() }, opts)).toBe(
      CONTROL_ERROR_CODES.leaseHeld,
    );

    sim.advanceClock(100);
    const renewed = await call(ep, CONTROL_METHODS.leaseRenew, { contextId, controllerId: 'alpha', epoch: reclaimed.epoch, ttlSeconds: 600, requestId: rid() }, opts);
    expect(renewed.lease.epoch).toBe(reclaimed.epoch); // renew keeps the epoch
    expect(Date.parse(renewed.lease.expiresAt)).toBe(Date.parse(renewed.serverTime) + 600_000);
    expect(await errorCode(ep, CONTROL_METHODS.leaseRenew, { contextId, controllerId: 'alpha', epoch: 0, ttlSeconds: 600, requestId: rid() }, opts)).toBe(
      CONTROL_ERROR_CODES.leaseStaleEpoch,
    );
    expect(await errorCode(ep, CONTROL_METHODS.leaseRenew, { contextId, controllerId: 'beta', epoch: reclaimed.epoch, ttlSeconds: 600, requestId: rid() }, opts)).toBe(
      CONTROL_ERROR_CODES.leaseNotHeld,
    );
    expect(await errorCode(ep, CONTROL_METHODS.leaseRelease, { contextId, controllerId: 'beta', epoch: reclaimed.epoch, requestId: rid() }, opts)).toBe(
      CONTROL_ERROR_CODES.leaseNotHeld,
    );

    const released = await call(ep, CONTROL_METHODS.leaseRelease, { contextId, controllerId: 'alpha', epoch: reclaimed.epoch, requestId: rid() }, opts);
    expect(released.lease).toBeNull();
    expect((await call(ep, CONTROL_METHODS.leaseGet, { contextId }, opts)).lease).toBeNull();
    // A new tenure after release gets a new epoch, even for the same controller.
    expect((await claim({ contextId, controllerId: 'alpha' })).lease.epoch).toBe(reclaimed.epoch + 1);
  });

  it('expires on the clock, and the next claim (by anyone) takes a higher epoch', async () => {
    const { lease } = await claim({ controllerId: 'alpha', ttlSeconds: 60 });
    const contextId = lease.contextId;
    sim.advanceClock(61);
    expect((await call(ep, CONTROL_METHODS.leaseGet, { contextId }, opts)).lease).toBeNull();
    expect(await errorCode(ep, CONTROL_METHODS.leaseRenew, { contextId, controllerId: 'alpha', epoch: 1, ttlSeconds: 60, requestId: rid() }, opts)).toBe(
      CONTROL_ERROR_CODES.leaseNotHeld,
    );
    expect((await claim({ contextId, controllerId: 'beta' })).lease).toMatchObject({ holder: 'beta', epoch: 2 });
    sim.advanceClock(601);
    expect((await claim({ contextId, controllerId: 'beta' })).lease.epoch).toBe(3);
  });

  it('bounds the TTL to 60..3600 s and requires a request id', async () => {
    for (const ttlSeconds of [59, 3601, 60.5]) {
      expect(await errorCode(ep, CONTROL_METHODS.leaseClaim, { controllerId: 'alpha', ttlSeconds, requestId: rid() }, opts)).toBe(-32602);
    }
    expect(await errorCode(ep, CONTROL_METHODS.leaseClaim, { controllerId: 'alpha', ttlSeconds: 60 }, opts)).toBe(-32602);
    expect(await errorCode(ep, CONTROL_METHODS.leaseGet, {}, opts)).toBe(-32602);
  });

  it('reads the lease back in the compact metadata of every task of the context', async () => {
    const { contextIds, ids } = sim.createTasksDetailed(2, 'steady');
    const { lease } = await claim({ contextId: contextIds[0], controllerId: 'alpha' });
    const method = protocol === '1.0' ? 'GetTask' : 'tasks/get';
    const task = await call(ep, method, { id: ids[0] }, opts);
    expect(task.metadata[CONTROL_EXTENSION_URI].lease).toEqual(lease);
    const other = await call(ep, method, { id: ids[1] }, opts);
    expect(other.metadata[CONTROL_EXTENSION_URI].lease).toBeNull();
  });
});
