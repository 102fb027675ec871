/**
 * Per-campaign memory the XState actors would otherwise keep for nothing (10,000 campaigns live
 * as long as the process). Reaches into XState's `options` field (checked against xstate 5.x):
 * an upgrade that renames it makes `compactActorOptions` a no-op, never a failure.
 * @module
 */
import type { Actor } from 'xstate';
import type { CampaignMachine } from '../../machines/campaign.machine.js';

/**
 * Per-campaign memory the actors would otherwise keep for nothing (10,000 campaigns live as
 * long as the process). XState reads `options.snapshot` only while it constructs an actor, yet
 * keeps the options for the actor's life: the restored snapshot (the settled copy of the
 * document's) would stay beside the live one, about a kilobyte once the context has moved on.
 * And each options object (`{...defaults, ...options}`) gets a hidden class of its own in V8,
 * ~550 bytes apiece: a plain copy shares one with every other campaign's. Only the options of
 * the actor and of the children restored with it (the status reader) are kept this way.
 */
export function compactActorOptions(actor: Actor<CampaignMachine>): void {
  const compact = (ref: { options: unknown }) => {
    const options: Record<string, unknown> = Object.assign({}, ref.options);
    options.snapshot = undefined;
    ref.options = options;
  };
  compact(actor as unknown as { options: unknown });
  for (const child of Object.values(actor.getSnapshot().children as Record<string, unknown>)) {
    if (child && typeof child === 'object' && 'options' in child) compact(child as { options: unknown });
  }
}

/** The persisted snapshot as kept in memory: a plain copy, whose hidden class every host shares (see above). */
export const compactPersisted = (persisted: object): object => Object.assign({}, persisted);

