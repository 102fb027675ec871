/**
 * End-to-end fencing of the remote, the runtime's half (issue 22 part 4). A database fence
 * protects the database only: the replica this campaign was taken from may still send a mutation
 * with the remote epoch it holds. So a campaign this replica took over is told so
 * (HOSTING_TAKEN_OVER) before anything else is asked of it, and its first read waits until the
 * chart has settled it. The chart decides what the event means (campaign.rotating.ts): a
 * controlling campaign reads the lease back and claims again for a greater epoch (or goes
 * control-lost); a campaign restored in doubt under a hold does the same and stays in doubt, to
 * be resolved by readback as always (never resent); any other state does not take the event.
 *
 * Replica mode only: the file store's restart path has no takeover (`tookOver` is absent) and
 * never claims on its own.
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import type { CampaignContext } from '../../machines/campaign.types.js';
import type { CampaignHost } from '../campaign/campaign-host.js';

const IN_DOUBT = { active: { authority: 'ambiguous-intent' } } as const;

/** The epoch held (controlling) or last held (in doubt: a rotation there records it as such). */
const heldEpoch = (context: CampaignContext): number | null => context.lease?.epoch ?? context.lastEpoch;

export class Takeovers {
  private readonly pending = new Map<string, Promise<void>>();

  /** @param tookOver whether this process's right to host the campaign was taken from an earlier holder (absent: never). */
  constructor(
    private readonly tookOver: ((campaignId: string) => boolean) | undefined,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * A campaign is up here: if it was taken over (`always`: adopted after boot, which is a
   * takeover by definition), its rotation starts now. Resolves when it has settled.
   */
  begin(host: CampaignHost, always = false): Promise<void> {
    if (!this.tookOver || !host.running || !(always || this.tookOver(host.id))) return Promise.resolve();
    const event = { type: 'HOSTING_TAKEN_OVER' as const, now: this.now().toISOString() };
    // Sent whatever the state: the chart's guards decide whether there is an epoch to rotate (or
    // to give up); where there is none, it does not take the event and nothing is logged.
    const before = host.getSnapshot();
    const taken = before.can(event);
    const inDoubt = before.matches(IN_DOUBT);
    const epoch = heldEpoch(before.context);
    const settled = host.send(event).then(
      ({ snapshot }) => {
        if (!taken) return;
        const now = heldEpoch(snapshot.context);
        const fields = { campaignId: host.id, epoch: now, previousEpoch: epoch, code: snapshot.context.lastErrorCode };
        if (now !== null && epoch !== null && now > epoch) this.logger.info(fields, `campaign taken over: the remote granted a greater epoch, the previous host's is refused${inDoubt ? '; the intent in doubt is still resolved by readback' : ''}`);
        else if (inDoubt) this.logger.warn(fields, 'campaign taken over in doubt: the epoch could not be rotated; the intent is still resolved by readback, never resent');
        else this.logger.warn(fields, 'campaign taken over: the epoch could not be rotated, control is given up');
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
