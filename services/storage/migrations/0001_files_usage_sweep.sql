-- Up Migration
-- File metadata: the record of truth for what exists (an object without a record is an orphan).
-- A path is `<project_id>/<generated name>`; the key leads with the project, so every lookup of
-- a tenant's file names its tenant.
CREATE TABLE files (
  project_id text NOT NULL,
  path text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'complete')),
  content_type text NOT NULL,
  original_name text NOT NULL,
  size bigint NOT NULL DEFAULT 0 CHECK (size >= 0),
  -- Quota bytes held while the upload streams, released by the janitor after a crash.
  reserved bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  verified_at timestamptz,
  PRIMARY KEY (project_id, path)
);
-- The janitor's scans across projects: stale pending uploads, complete records to verify.
CREATE INDEX files_status_created_at ON files (status, created_at);

-- Bytes in use per project. A reservation is one conditional upsert, so parallel uploads on any
-- number of replicas never push `used` past the quota.
CREATE TABLE storage_usage (
  project_id text PRIMARY KEY,
  used bigint NOT NULL CHECK (used >= 0)
);

-- Where the orphan-object scan stopped, between janitor calls (one row per scan).
CREATE TABLE sweep_state (
  name text PRIMARY KEY,
  after text
);

-- Down Migration
DROP TABLE sweep_state;
DROP TABLE storage_usage;
DROP TABLE files;
