-- Up Migration
-- Console accounts: people who sign in to the web console and reach the projects they are granted
-- (platform admins reach every project). Not end users of any project.
CREATE TABLE console_accounts (
  id text PRIMARY KEY,
  email text NOT NULL,
  -- What the email is unique on (trimmed, lower case), platform-wide.
  email_lower text NOT NULL,
  password_hash text NOT NULL,
  platform_admin boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT console_accounts_email_unique UNIQUE (email_lower)
);

-- An account's role on a project. Changes to one project's members lock the project's row first,
-- so two of them (say, two owners demoting each other) are applied one after the other and the
-- last-owner rule holds; deleting the project takes the same lock.
CREATE TABLE console_memberships (
  account_id text NOT NULL REFERENCES console_accounts (id) ON DELETE CASCADE,
  project_id text NOT NULL REFERENCES projects (id),
  role text NOT NULL CHECK (role IN ('viewer', 'developer', 'owner')),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, project_id)
);
CREATE INDEX console_memberships_project ON console_memberships (project_id);

-- Console sessions (the `baas_console` cookie): only the SHA-256 of the token. Absolute expiry.
CREATE TABLE console_sessions (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES console_accounts (id) ON DELETE CASCADE,
  token_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  client_ip text,
  user_agent text,
  CONSTRAINT console_sessions_token_unique UNIQUE (token_hash)
);
CREATE INDEX console_sessions_account ON console_sessions (account_id);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);

-- Invitations to a project by email: only the digest of the link token; single use (accepted_at).
-- invited_by is the inviting account (null: the platform admin token); no foreign key, so
-- deleting that account leaves the invitation valid.
CREATE TABLE console_invitations (
  id text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id),
  email text NOT NULL,
  email_lower text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'developer', 'owner')),
  token_hash text NOT NULL,
  invited_by text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  CONSTRAINT console_invitations_token_unique UNIQUE (token_hash)
);
CREATE INDEX console_invitations_project ON console_invitations (project_id, email_lower);
CREATE INDEX console_invitations_expiry ON console_invitations (expires_at);

-- Password-reset codes of accounts: one live code per account, only the digest of its token.
CREATE TABLE console_reset_codes (
  account_id text PRIMARY KEY REFERENCES console_accounts (id) ON DELETE CASCADE,
  token_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  CONSTRAINT console_reset_codes_token_unique UNIQUE (token_hash)
);
CREATE INDEX console_reset_codes_expiry ON console_reset_codes (expires_at);

-- Down Migration
DROP TABLE console_reset_codes;
DROP TABLE console_invitations;
DROP TABLE console_sessions;
DROP TABLE console_memberships;
DROP TABLE console_accounts;
