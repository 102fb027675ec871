/**
 * The supervisor's hold on its right to host (persistence/ownership.ts): whether it is still the
 * owner, a fresh check of its fence before anything leaves the process, and the one moment it
 * finds the right gone. Losing it — a failed renewal (the right's own `onLost`), a `fence_stale`
 * write, or a fence check that fails — is noticed once and stops every covered actor at once
 * (`onLost`): no rewind, no restart, no further remote call or write. A deposed process never
 * re-claims on its own; the operator stops it and the new owner carries on.
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import type { HostingRight } from '../../persistence/ownership.js';
import { apiError, type ApiError } from '../contract/api-errors.js';

export class Hosting {
  private right: HostingRight | null = null;
  private released = false;
  private lostReason: string | null = null;
  /** A fence check in flight: concurrent remote calls share it (it started after each asked). */
  private checking: Promise<boolean> | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly onLost: (reason: string) => void,
  ) {}

  /** Takes the right start() claimed; its own loss (a failed renewal) is ours from now on. */
  hold(right: HostingRight): void {
    this.right = right;
    this.released = false;
    this.lostReason = null;
    this.unsubscribe = right.onLost((reason) => this.lose(reason));
  }

  /** Held and not lost: false before start, after stop and once deposed. */
  get owner(): boolean {
    return this.right !== null && !this.released && this.lostReason === null && !this.right.lost;
  }

  /** Deposed: held once, lost since (a release by stop() is not a loss). */
  get lost(): boolean {
    return this.lostReason !== null;
  }

  /**
   * The fence is still ours, asked of the ownership now (the embedded owner lock reads its
   * record). A failed check is the loss itself: every covered actor stops before this answers.
   */
  valid(): Promise<boolean> {
    const right = this.right;
    if (right === null || this.released || this.lostReason !== null) return Promise.resolve(false);
    if (right.lost) {
      this.lose('the right to host is no longer held');
      return Promise.resolve(false);
    }
    this.checking ??= right
      .verify('(remote call)', right.fence)
      .then(
        (verdict) => {
          if (!verdict.ok) this.lose(verdict.reason);
          return verdict.ok;
        },
        (error: unknown) => {
          this.lose(`the fence could not be checked (${error instanceof Error ? error.message : String(error)})`);
          return false;
        },
      )
      .finally(() => {
        this.checking = null;
      });
    return this.checking;
  }

  /**
   * What an API call touching `campaignId` (or any covered campaign) answers while this process
   * is not the owner; null while it is, or before start / after stop (the old answers apply then).
   */
  async refusal(campaignId?: string): Promise<ApiError | null> {
    const right = this.right;
    if (right === null || this.released) return null;
    if (campaignId !== undefined && !right.hosts(campaignId)) return null;
    if (await this.valid()) return null;
    this.logger.error({ campaignId: campaignId ?? null, code: 'not_owner' }, 'call refused: this process is no longer the owner of its campaigns');
    return NOT_OWNER;
  }

  /** The loss, noticed once: logged, then every covered actor is stopped by `onLost`. */
  lose(reason: string): void {
    if (this.right === null || this.released || this.lostReason !== null) return;
    this.lostReason = reason;
    const code = this.right.scope.kind === 'state-root' ? 'state_root_taken_over' : 'hosting_lost';
    this.logger.error({ code, reason }, 'this process lost the right to host: its actors are stopped and nothing more is sent or written');
    this.onLost(reason);
  }

  /** Gives the right back on stop (a lost right is left to its new owner by the ownership itself). */
  async release(): Promise<void> {
    const right = this.right;
    if (right === null || this.released) return;
    this.released = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    await right.release();
  }
}

export const NOT_OWNER: ApiError = apiError('not_owner', 'This supervisor is no longer the owner of its campaigns (another process took over its state root), so it refuses every campaign call; stop it.');
