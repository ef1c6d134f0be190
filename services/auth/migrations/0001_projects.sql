-- Up Migration
-- Projects of the platform. A deleted project stays as a tombstone (deleted_at set, no keys), so
-- its deletion event and later lookups are unambiguous.
CREATE TABLE projects (
  id text PRIMARY KEY,
  name text NOT NULL,
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
);

-- A project's two API keys, only as SHA-256 hashes. The hash is the primary key, so resolving a
-- key (the gateway's lookup on every uncached request) is one index probe, and no two keys of
-- any project or type can share a hash.
CREATE TABLE project_keys (
  hash text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  key_type text NOT NULL CHECK (key_type IN ('publishable', 'secret')),
  prefix text NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (project_id, key_type)
);

-- Down Migration
DROP TABLE project_keys;
DROP TABLE projects;
