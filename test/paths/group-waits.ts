/**
 * How a driven path's group (run-path.ts) waits for the running system: for a held effect to
 * park at the remote, for a command that may wait on it, for the campaign to settle. And the two
 * verdicts a wait (or any check) can reach besides agreement.
 */
import type { DrivenWorld } from './driven-world.js';
import type { Outcome } from './stimuli.js';

/** The running system did something the model says it must not (run-path.ts). */
export class Disagreement extends Error {}
/** The path could not be reproduced (run-path.ts). */
export class Undriven extends Error {}

/** Resolves once the simulator holds `count` requests and the campaign has taken what came before. */
export async function parked(world: DrivenWorld, count: number): Promise<void> {
  for (let i = 0; i < 400 && world.sim.holding < count; i++) await new Promise((r) => setTimeout(r, 5));
  if (world.sim.holding < count) throw new Disagreement('the effect the model started never reached the remote');
}

/**
 * After a hold: the command's own answer if it comes within a second, else the actor's events stop
 * arriving for 100 ms. A driver that restarted is waited for (bounded): only its answer restores the model.
 */
export async function idle(world: DrivenWorld, performing: Promise<Outcome>, restartsBefore: number): Promise<Outcome> {
  const answered = await Promise.race([performing, new Promise<null>((r) => setTimeout(() => r(null), 1000))]);
  if (answered) return answered;
  if (world.restarts() !== restartsBefore) return performing;
  await world.quiet(100);
  return { ok: true };
}

/** Waits until the campaign is quiescent (or only held effects run) and its writes are on disk. */
export async function settle(world: DrivenWorld, holding = false): Promise<void> {
  // A decision effect (not tagged: the chart saves in any decision state) can take a turn's budget.
  const tries = world.argus ? 3_000 : 200;
  for (let i = 0; i < tries; i++) {
    const host = world.supervisor.system!.host('path-1');
    if (!host) return;
    await host.whenWritten();
    if (holding || (!host.getSnapshot().hasTag('effect-in-flight') && !world.argus?.busy(host))) {
      await host.whenWritten();
      return;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Disagreement(`the campaign did not settle within ${world.argus ? 'fifteen seconds' : 'a second'}`);
}
