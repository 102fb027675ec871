/**
 * The rotation steps a takeover (HOSTING_TAKEN_OVER) runs before anything else, in `controlling`
 * and in `ambiguous-intent` (issue 22 part 4; rules in campaign.rotation.ts):
 *
 * - `rotating` reads the lease back (`readLease`): only `rotationMayClaim` goes on to the claim.
 * - `reclaiming` claims again and reads back (`rotateLease`): `rotationConfirmed` or not.
 *
 * Both are effects in flight: nothing is renewed, mutated, paused or resolved meanwhile, and no
 * snapshot is saved in them. Where each ends is the caller's: `controlling` goes back to `ready`
 * at the new epoch, or gives control up; `ambiguous-intent` goes back to `unresolved` either way
 * (see campaign.machine.ts for why), so its intent is still resolved by readback, never resent.
 * @module
 */
import { campaignSetup, EFFECT_IN_FLIGHT } from './campaign.setup.js';
import { rotationClaimInput, rotationReadInput, rotationRefusal } from './campaign.rotation.js';
import type { ReadLeaseOutput } from './campaign.types.js';

/** The readback the claim step was entered with (the done event of `rotating`'s read). */
const judgedReadback = (event: unknown): ReadLeaseOutput['readback'] => (event as { output?: ReadLeaseOutput }).output?.readback ?? null;

/**
 * @param settled where a confirmed rotation leads (and, with `adopt`, what it records).
 * @param refused where a rotation that could not, or must not, be completed leads.
 */
export function rotationStates(settled: string, refused: string, adopt: 'adoptRotation' | 'adoptRotationInDoubt') {
  return {
    rotating: campaignSetup.createStateConfig({
      tags: EFFECT_IN_FLIGHT,
      invoke: {
        id: 'readLease',
        src: 'readLease',
        input: ({ context }) => rotationReadInput(context),
        onDone: [
          { guard: { type: 'rotationMayClaim', params: ({ event }) => ({ output: event.output }) }, target: 'reclaiming' },
          // Another holder, another epoch, no lease, too late to claim in time, or no answer: nothing is claimed.
          { target: refused, actions: { type: 'noteError', params: ({ context, event }) => ({ code: rotationRefusal(context, event.output) }) } },
        ],
        onError: { target: refused, actions: { type: 'noteError', params: { code: 'epoch_rotation_failed' } } },
      },
    }),
    reclaiming: campaignSetup.createStateConfig({
      tags: EFFECT_IN_FLIGHT,
      invoke: {
        id: 'rotateLease',
        src: 'rotateLease',
        input: ({ context, event }) => rotationClaimInput(context, judgedReadback(event)),
        onDone: [
          {
            guard: { type: 'rotationConfirmed', params: ({ event }) => ({ output: event.output }) },
            target: settled,
            actions: { type: adopt, params: ({ event }) => ({ output: event.output }) },
          },
          // A claim refused or unanswered (its answer lost may have granted an epoch we do not
          // know), or a grant the readback does not confirm.
          { target: refused, actions: { type: 'noteError', params: ({ event }) => ({ code: event.output.code ?? 'lease_lost_readback' }) } },
        ],
        onError: { target: refused, actions: { type: 'noteError', params: { code: 'epoch_rotation_failed' } } },
      },
    }),
  };
}
