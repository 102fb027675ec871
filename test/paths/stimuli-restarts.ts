/**
 * The drivers that restart the process (stimuli.ts performs them): a crash that left an intent
 * journaled and unsent, a restart while the remote's card cannot be fetched, and a takeover by
 * another replica. Each restarts the world's supervisor on the same store (driven-world.ts).
 */
import { silentLogger } from '../../adapters/logger.js';
import { recordIntent } from '../../persistence/intent-journal.js';
import { digestPayload } from '../../persistence/payload-digest.js';
import { Takeovers } from '../../services/runtime/takeover.js';
import { CAMPAIGN, type DrivenWorld } from './driven-world.js';
import type { Outcome } from './stimuli.js';

const OK: Outcome = { ok: true };
const no = (reason: string): Outcome => ({ ok: false, reason });

/** What a crash between an intent's journal fsync and its send leaves on disk, then the restart. */
export async function crashWithOpenIntent(world: DrivenWorld, kind: string): Promise<Outcome> {
  if (kind !== 'submit') return no(`an open ${kind} intent at restart is not scripted`);
  const view = await world.view();
  // An intent still unresolved (in doubt since an earlier restart) is what this restart finds again.
  const open = (await world.document()).intents.find((i) => i.outcome === null || i.outcome.status === 'ambiguous');
  await world.stop();
  if (open) {
    await world.restart();
    return { ok: true, restarted: true, journaled: { requestId: open.requestId, kind: open.action, outcomeRecorded: open.outcome !== null } };
  }
  const requestId = `crash-${world.now()}`;
  const written = await world.offline((store) =>
    store.transact(CAMPAIGN, (doc) => {
      const next = recordIntent(doc, { requestId, action: 'submit', epoch: view.lease?.epoch ?? 0, payloadDigest: digestPayload({ text: 'attempt' }), createdAt: new Date(world.now()) });
      if (!next.ok) throw new Error(next.reason);
      return next.doc;
    }),
  );
  if (!written.ok) return no(`the journal could not be written: ${written.code}`);
  await world.restart();
  return { ok: true, restarted: true, journaled: { requestId, kind: 'submit' } };
}

/**
 * The environment changes under a running campaign: the process restarts while the remote's
 * card cannot be fetched (the restored actor holds no capabilities), then discovery's retry
 * finds it and the supervisor broadcasts ENVIRONMENT. The plan's ENVIRONMENT may name another
 * change (capabilities lost rather than found): the arrow it takes is the same one.
 */
export async function environmentChanges(world: DrivenWorld): Promise<Outcome> {
  world.sim.injectFaults({ kind: 'http-5xx', methods: ['agentCard'], count: 10 });
  const told = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 5000);
    world.whenReceived('ENVIRONMENT', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  await world.restart();
  world.sim.clearFaults();
  if (!(await told)) return no('discovery did not answer again within 5 s');
  return { ok: true, restarted: true };
}

/**
 * A replica took the campaign over (issue 22 part 4). On PostgreSQL, for real: the process
 * restarts as a new replica, whose claim is fence 2, so its load sends HOSTING_TAKEN_OVER; the
 * driver then waits for the rotation to settle, or to be parked at the remote when the plan
 * holds it (the answer must still say `restarted`: the actor was rebuilt). The file store
 * never sends it: there this runs the replica path's own hook (takeover.ts) on the live host,
 * as a replica's adopt does, and waits for the rotation to settle.
 */
export async function takenOver(world: DrivenWorld): Promise<Outcome> {
  if (world.store === 'postgres') {
    const told = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 5000);
      world.whenReceived('HOSTING_TAKEN_OVER', () => (clearTimeout(timer), resolve(true)));
    });
    // Counted before the restart: the new replica's load may send the takeover and its effect
    // may park at the remote before `restart` returns (seen in ambiguous-intent, whose restore
    // also sends INTENT_IN_DOUBT); counted after, that park went unseen and this waited on it.
    const holding = world.sim.holding;
    await world.restart();
    if (!(await told)) return no('the new replica did not send HOSTING_TAKEN_OVER within 5 s');
    const host = world.supervisor.system?.host(CAMPAIGN);
    for (let i = 0; i < 1000 && host?.getSnapshot().hasTag('effect-in-flight') && world.sim.holding === holding; i++) await new Promise((r) => setTimeout(r, 5));
    return { ok: true, restarted: true };
  }
  const host = world.supervisor.system?.host(CAMPAIGN);
  if (!host) return no('the campaign is not hosted');
  await new Takeovers(() => true, silentLogger(), () => new Date(world.now())).begin(host, true);
  return OK;
}
