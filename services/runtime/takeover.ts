/**
 * End-to-end fencing of the remote, the runtime's half (issue 22 part 4). A database fence
 * protects the database only: the replica this campaign was taken from may still send a mutation
 * with the remote epoch it holds. So a campaign this replica took over is told so
 * (HOSTING_TAKEN_OVER) before anything else is asked of it, and its first read waits until the
 * chart has settled it: a controlling campaign reads the lease back and claims again for a
 * greater epoch (or goes control-lost); any other state ignores the event. An intent in doubt
 * was already restored into `ambiguous-intent` by the load, before this, so it is resolved by
 * readback as always and is never rotated over.
 *
 * Replica mode only: the file store's restart path has no takeover (`tookOver` is absent) and
 * never claims on its own.
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import type { CampaignHost } from '../campaign/campaign-host.js';

const CONTROLLING = { active: { authority: 'controlling' } } as const;

export class Takeovers {
  private readonly pending = new Map<string, Promise<void>>();

  /** @param tookOver whether this process's right to host the campaign was taken from an earlier holder (absent: never). */
  constructor(
    private readonly tookOver: ((campaignId: string) => boolean) | undefined,
    private readonly logger: Logger,
  ) {}

  /**
   * A campaign is up here: if it was taken over (`always`: adopted after boot, which is a
   * takeover by definition), its rotation starts now. Resolves when it has settled.
   */
  begin(host: CampaignHost, always = false): Promise<void> {
    if (!this.tookOver || !host.running || !(always || this.tookOver(host.id))) return Promise.resolve();
    if (!host.getSnapshot().matches(CONTROLLING)) return Promise.resolve();
    const epoch = host.getSnapshot().context.lease?.epoch ?? null;
    const settled = host.send({ type: 'HOSTING_TAKEN_OVER' }).then(
      ({ snapshot }) => {
        const now = snapshot.context.lease?.epoch ?? null;
        if (now !== null && now !== epoch) this.logger.info({ campaignId: host.id, epoch: now, previousEpoch: epoch }, 'campaign taken over: the remote granted a greater epoch, the previous host\'s is refused');
        else this.logger.warn({ campaignId: host.id, code: snapshot.context.lastErrorCode, previousEpoch: epoch }, 'campaign taken over: the epoch could not be rotated, control is given up');
      },
      (error: unknown) => this.logger.error({ campaignId: host.id, err: String(error) }, 'campaign taken over: the rotation failed'),
    );
    const tracked = settled.finally(() => this.pending.delete(host.id));
    this.pending.set(host.id, tracked);
    return tracked;
  }

  /** Resolves once the campaign's rotation (if any) has settled: its first read waits for it. */
  settled(campaignId: string): Promise<void> {
    return this.pending.get(campaignId) ?? Promise.resolve();
  }
}
