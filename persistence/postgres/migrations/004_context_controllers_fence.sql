-- Issue 22, part 5 (second review): a context_controllers row is written, kept and let go under
-- the campaign's right, like every other write of a campaign (persistence/postgres/
-- context-controllers.ts). `fence` is the campaign's ownership fence the row was last written
-- under, so a later tenure of the campaign (a greater fence) can tell a row an earlier tenure
-- left behind. Rows written before this column existed get 0: older than any tenure (fences
-- start at 1), so the reclaim rule treats them as left behind.
ALTER TABLE context_controllers ADD COLUMN fence bigint NOT NULL DEFAULT 0;
