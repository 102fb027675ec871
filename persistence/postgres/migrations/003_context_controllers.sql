-- Issue 22, part 5: one controller per remote context ACROSS replicas. Which campaign controls
-- which remote context is a fact no single campaign owns; with campaigns spread over replicas it
-- lives here, where the primary key lets only one campaign hold a context
-- (services/runtime/replica-contexts.ts). A campaign holds at most one context (the unique
-- campaign_id). A row is the campaign's fact, not a replica's: it outlives the replica that
-- wrote it, and whichever replica hosts the campaign next settles it from the restored chart.
CREATE TABLE context_controllers (
  context_id  text PRIMARY KEY,
  campaign_id text NOT NULL UNIQUE,
  held_at     timestamptz NOT NULL DEFAULT now()
);
