-- Up Migration
-- A login: every refresh token of one rotation chain belongs to it; revoking it is one write.
CREATE TABLE session_families (
  project_id text NOT NULL,
  id text NOT NULL,
  user_id text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revoked_reason text,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX session_families_user ON session_families (project_id, user_id);
CREATE INDEX session_families_expiry ON session_families (expires_at);
CREATE INDEX session_families_revoked ON session_families (revoked_at) WHERE revoked_at IS NOT NULL;

-- Refresh tokens by SHA-256. The primary key on the hash is what makes rotation exact: a token's
-- one possible successor is inserted with ON CONFLICT DO NOTHING, and exactly one caller (on any
-- replica) gets the row. No foreign key to the family: a rotation racing the janitor's purge of
-- its family must fail as an invalid token, not as a constraint error.
CREATE TABLE refresh_tokens (
  hash text PRIMARY KEY,
  project_id text NOT NULL,
  user_id text NOT NULL,
  family_id text NOT NULL,
  issued_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  child_hash text
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (project_id, family_id);
CREATE INDEX refresh_tokens_user ON refresh_tokens (project_id, user_id);
CREATE INDEX refresh_tokens_expiry ON refresh_tokens (expires_at);

-- Down Migration
DROP TABLE refresh_tokens;
DROP TABLE session_families;
