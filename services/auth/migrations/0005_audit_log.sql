-- Up Migration
-- The audit log of admin actions, every service's (they arrive as audit.recorded events; the
-- event id is the entry id, so a redelivery inserts nothing). Append-only: no API updates or
-- deletes a row, and deleting a project leaves its entries. project_id is null for
-- platform-wide actions (signing key rotation).
CREATE TABLE audit_log (
  id text PRIMARY KEY,
  project_id text,
  at timestamptz NOT NULL,
  action text NOT NULL,
  actor jsonb NOT NULL,
  target_type text NOT NULL,
  target_id text NOT NULL,
  request_id text,
  client_ip text,
  details jsonb,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
-- Newest first, per project and across the platform, as keyset pages.
CREATE INDEX audit_log_project_at ON audit_log (project_id, at DESC, id DESC);
CREATE INDEX audit_log_at ON audit_log (at DESC, id DESC);

-- Down Migration
DROP TABLE audit_log;
