/**
 * The remote as the campaigns' effects (and `create`'s task read) see it: every call — status
 * read, claim, renew, release, readback, relay — asks the hosting fence first and is refused
 * locally (`not_owner`, `not_sent`) when this process no longer holds the right to host. One
 * wrapper where every remote call of a campaign passes, so no effect can forget the check.
 *
 * The check runs right before the inner client writes its request: the inner client only
 * awaits discovery before it sends, so discovery is done (and fenced) first, and the fence is
 * asked again after it. What remains between the check and the write is the same tick.
 * @example
 *   const remote = fencedRemote(createA2AClient({ baseUrl }), hosting);
 *   await remote.getTask('t1'); // { ok: false, error: { code: 'not_owner', outcome: 'not_sent' } } once deposed
 * @module
 */
import type { A2AClient, A2AControl } from '../../adapters/a2a/index.js';
import { refusedLocally, type Result } from '../../adapters/a2a/errors.js';

/** Whether this process may still speak for its campaigns, asked of the ownership at call time. */
export interface HostingFence {
  valid(): Promise<boolean>;
}

const notOwner = (): Result<never> => refusedLocally('not_owner', 'this process no longer holds the right to host its campaigns, so nothing was sent');

export function fencedRemote(inner: A2AClient, fence: HostingFence): A2AClient {
  let discovered = false;

  async function guarded<T>(send: () => Promise<Result<T>>): Promise<Result<T>> {
    if (!discovered) {
      // The inner client would fetch the card first and then send without asking again.
      if (!(await fence.valid())) return notOwner();
      const found = await inner.discover();
      if (!found.ok) return found;
      discovered = true;
    }
    if (!(await fence.valid())) return notOwner();
    return send();
  }

  const c = inner.control;
  const control: A2AControl = {
    leaseGet: (req) => guarded(() => c.leaseGet(req)),
    leaseClaim: (req) => guarded(() => c.leaseClaim(req)),
    leaseRenew: (req) => guarded(() => c.leaseRenew(req)),
    leaseRelease: (req) => guarded(() => c.leaseRelease(req)),
    intervene: (req) => guarded(() => c.intervene(req)),
    requestGet: (req) => guarded(() => c.requestGet(req)),
  };

  return {
    discover: async () => ((await fence.valid()) ? inner.discover() : notOwner()),
    getTask: (taskId, bound) => guarded(() => inner.getTask(taskId, bound)),
    submit: (req) => guarded(() => inner.submit(req)),
    reply: (req) => guarded(() => inner.reply(req)),
    cancel: (taskId, opts) => guarded(() => inner.cancel(taskId, opts)),
    ...(inner.listTasks ? { listTasks: (req: Parameters<NonNullable<A2AClient['listTasks']>>[0]) => guarded(() => inner.listTasks!(req)) } : {}),
    control,
    close: () => inner.close(),
  };
}
