-- Step 11, part 1 and 2: replicas, per-campaign ownership with a fence, campaign documents.
-- Applied by migrate.ts inside one transaction under an advisory lock, with search_path set to
-- the installation's schema, so the names below are created there.

-- One row per live replica; `expires_at` is on the database clock (now()), never an app clock.
CREATE TABLE replicas (
  replica_id   text PRIMARY KEY,
  started_at   timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL
);

-- The right to host one campaign. The row is never deleted, so `fence` only ever goes up:
-- every claim (first, after a release, after a takeover) sets fence = fence + 1.
-- `holder` is NULL after a release.
CREATE TABLE campaign_owner (
  campaign_id text PRIMARY KEY,
  holder      text,
  fence       bigint NOT NULL CHECK (fence > 0),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX campaign_owner_holder ON campaign_owner (holder);

-- The campaign document (persistence/campaign-document.ts) with everything it carries: the
-- intent journal, the outbox, idempotency answers, the chart's snapshot. `json`, not `jsonb`:
-- the text is kept as written (jsonb refuses \u0000 and reorders keys). `fence` is the
-- fence of the last write, so a new owner can tell a document written before its takeover.
CREATE TABLE campaign_documents (
  campaign_id text PRIMARY KEY,
  document    json NOT NULL,
  fence       bigint NOT NULL,
  written_at  timestamptz NOT NULL DEFAULT now()
);
