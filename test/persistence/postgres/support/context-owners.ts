/**
 * Ownership rows written by a context-controllers test itself, and the replica's side of the
 * fence that goes with them (what `DatabaseContextIndex` asks `fenceFor`).
 */

/** One statement on the test's own client. */
export type Sql = (text: string, values?: unknown[]) => Promise<unknown>;

/** A replica's side of the fence, set by the test (the database rows are set with `own`). */
export class Writer {
  readonly fences = new Map<string, number>();
  constructor(readonly holder: string) {}
  fenceFor(campaignId: string): number | null {
    return this.fences.get(campaignId) ?? null;
  }
}

/** `writer` holds `campaignId` at `fence` (its row live, or expired), in the database and in its own memory. */
export async function own(sql: Sql, writer: Writer, campaignId: string, fence: number, live = true): Promise<void> {
  await sql(
    `INSERT INTO campaign_owner (campaign_id, holder, fence, expires_at) VALUES ($1, $2, $3, now() + $4::interval)
     ON CONFLICT (campaign_id) DO UPDATE SET holder = EXCLUDED.holder, fence = EXCLUDED.fence, expires_at = EXCLUDED.expires_at`,
    [campaignId, writer.holder, fence, live ? '1 hour' : '-1 second'],
  );
  writer.fences.set(campaignId, fence);
}
