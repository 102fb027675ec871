-- Step 11, part 5: a command for a campaign another replica owns travels as a row here
-- (persistence/postgres/command-relay.ts). NOTIFY carries only the row id; the request and
-- the answer live in the row, so a lost NOTIFY is recovered by reading rows (sweep, poll).
--
-- Life of a row: inserted by the sender with the owner it found (target_replica + fence at
-- send time) and a deadline on the database clock; claimed ONCE by the owner (claimed_at set
-- by an UPDATE that requires claimed_at IS NULL AND NOT abandoned AND deadline > now(), so a
-- duplicate NOTIFY, a sweep and a late owner cannot run it twice); answered (answer +
-- answered_at); or abandoned by a sender that stopped waiting, which a later claim respects.
CREATE TABLE campaign_commands (
  id             bigserial PRIMARY KEY,
  campaign_id    text NOT NULL,
  target_replica text NOT NULL,
  fence          bigint NOT NULL,
  sender_replica text NOT NULL,
  -- `json`, not `jsonb`: kept as sent (the owner's gate digests the request it receives).
  request        json NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  deadline       timestamptz NOT NULL,
  claimed_at     timestamptz,
  answered_at    timestamptz,
  answer         json,
  abandoned      boolean NOT NULL DEFAULT false
);

-- The owner's sweep after a (re)connect: unclaimed rows addressed to it. Partial, so it holds
-- only the few rows in flight, never the history.
CREATE INDEX campaign_commands_pending ON campaign_commands (target_replica, id)
  WHERE claimed_at IS NULL AND NOT abandoned;
-- Pruning old rows (relay.prune) by age.
CREATE INDEX campaign_commands_created ON campaign_commands (created_at);
