/**
 * What the supervisor gives every actor, and nothing more: time (one bare TICK per beat to every
 * active, unpaused actor: the chart decides what it means) and the process's environment (a
 * broadcast ENVIRONMENT when discovery answers or Argus's availability changes; an unchanged
 * one is not sent, so a beat costs no event for it).
 * @module
 */
import { environmentChanged } from '../../machines/campaign.guards.js';
import { tickable } from '../../machines/campaign.projection.js';
import type { HostEnvironment } from '../../machines/campaign.types.js';
import type { CampaignHost } from '../campaign/campaign-host.js';

export interface FleetTimeDeps {
  hosts(): Iterable<CampaignHost>;
  host(campaignId: string): CampaignHost | undefined;
  /** Whether a remote is configured and enabled: without one, nothing is read or renewed. */
  hasRemote(): boolean;
  /** The process's facts of now (computed on each call; cheap). */
  environment(): HostEnvironment;
  now(): Date;
}

export class FleetTime {
  /** The environment every actor was told last. */
  private told: HostEnvironment | null = null;

  constructor(private readonly deps: FleetTimeDeps) {}

  /** What a restored actor starts with: the environment told last (or of now, before any). */
  environment(): HostEnvironment {
    return this.told ?? this.deps.environment();
  }

  /** Takes the environment of now as the one every actor holds (at load, before any actor is up). */
  settle(): void {
    this.told = this.deps.environment();
  }

  /** Broadcasts the environment to every actor if it says something new since it was told last. */
  tellEnvironment(): void {
    const next = this.deps.environment();
    if (this.told && !environmentChanged(this.told, next)) return;
    this.told = next;
    for (const host of this.deps.hosts()) host.tellEnvironment(next);
  }

  /** Every active, unpaused actor, whatever its task or read state (once per beat). */
  *dueCampaigns(): Iterable<string> {
    // Once per beat: an environment that changed meanwhile (Argus's runtime) reaches every actor.
    this.tellEnvironment();
    for (const host of this.deps.hosts()) {
      if (host.running && tickable(host.getSnapshot())) yield host.id;
    }
  }

  /** The first tick after a restart (the same eligibility as a beat): resolves when it settled. */
  tickIfDue(campaignId: string): Promise<boolean> {
    const host = this.deps.host(campaignId);
    if (!host || !host.running || !this.deps.hasRemote() || !tickable(host.getSnapshot())) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      if (!this.tick(campaignId, () => resolve(true))) resolve(true);
    });
  }

  /** Sends one TICK; false when it is over already, else `settled` is called once what it started has settled. */
  tick(campaignId: string, settled: () => void): boolean {
    const host = this.deps.host(campaignId);
    // No remote (not configured or not enabled): nothing to read or renew, and no write per beat.
    if (!host || !this.deps.hasRemote()) return false;
    return host.tick({ type: 'TICK', now: this.deps.now().toISOString() }, settled);
  }
}
