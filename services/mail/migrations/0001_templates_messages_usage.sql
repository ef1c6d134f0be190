-- Up Migration
-- Templates: a project's own (project_id set) or a global one stored by the operator
-- (project_id NULL). Ids are 24 hex characters, the shape the send API accepts as templateId.
CREATE TABLE templates (
  id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{24}$'),
  project_id text,
  key text NOT NULL,
  name text NOT NULL,
  subject text NOT NULL,
  body_html text,
  body_text text,
  mjml text,
  compiled_html text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- One template per (owner, key): one index for projects' templates, one for global ones.
CREATE UNIQUE INDEX templates_project_key ON templates (project_id, key) WHERE project_id IS NOT NULL;
CREATE UNIQUE INDEX templates_global_key ON templates (key) WHERE project_id IS NULL;
CREATE INDEX templates_project_name ON templates (project_id, name, created_at);

-- One record per message (metadata only, never the body). Its final status and its mail.sent /
-- mail.failed outbox row are written in one transaction.
CREATE TABLE messages (
  project_id text NOT NULL,
  id text NOT NULL,
  recipient text NOT NULL,
  template_key text,
  system boolean NOT NULL,
  provider text NOT NULL,
  status text NOT NULL CHECK (status IN ('sending', 'sent', 'failed')),
  attempts integer,
  error text,
  caused_by text,
  created_at timestamptz NOT NULL,
  finished_at timestamptz,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX messages_project_created_at ON messages (project_id, created_at DESC);

-- Usage per (project, bucket): a counter taken with one conditional upsert (`used < limit`),
-- exact across replicas. `last_claimed_at` lets the hourly sweep drop buckets that are over.
CREATE TABLE usage_counters (
  project_id text NOT NULL,
  bucket text NOT NULL,
  used integer NOT NULL CHECK (used >= 0),
  last_claimed_at timestamptz NOT NULL,
  PRIMARY KEY (project_id, bucket)
);
CREATE INDEX usage_counters_last_claimed_at ON usage_counters (last_claimed_at);

-- Down Migration
DROP TABLE usage_counters;
DROP TABLE messages;
DROP TABLE templates;
