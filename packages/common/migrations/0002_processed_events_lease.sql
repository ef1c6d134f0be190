-- Up Migration
-- A claim is done only after the handler's effect (done_at); until then it is a lease held by
-- `token` since `at`, which a redelivery may take over once it is older than the lease.
-- Rows written before this migration were claimed by handlers that ran to the end or released
-- their claim on failure: they count as done.
ALTER TABLE processed_events ADD COLUMN token text;
ALTER TABLE processed_events ADD COLUMN done_at timestamptz;
UPDATE processed_events SET done_at = at;
-- The retention prune deletes by claim time.
CREATE INDEX processed_events_at ON processed_events (at);

-- Down Migration
DROP INDEX processed_events_at;
ALTER TABLE processed_events DROP COLUMN done_at;
ALTER TABLE processed_events DROP COLUMN token;
