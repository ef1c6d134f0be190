-- Up Migration
-- End users of every project. Every statement on these tables names the project.
CREATE TABLE users (
  project_id text NOT NULL,
  id text NOT NULL,
  email text NOT NULL,
  -- What the email is unique on (trimmed, lower case), per project.
  email_lower text NOT NULL,
  password_hash text NOT NULL,
  email_verified boolean NOT NULL DEFAULT false,
  profile jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(profile) = 'object'),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  password_changed_at timestamptz,
  PRIMARY KEY (project_id, id),
  CONSTRAINT users_email_unique UNIQUE (project_id, email_lower)
);

-- The public profile looks users up by username. A digest rather than the value itself, because a
-- b-tree entry may not exceed ~2.7 kB and profile values are the user's own.
CREATE INDEX users_username ON users (project_id, md5((profile -> 'username')::text));

-- One-time codes (verification, password reset): only digests. One live code per purpose.
CREATE TABLE user_codes (
  project_id text NOT NULL,
  user_id text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
  token_hash text NOT NULL,
  otp_hash text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (project_id, user_id, purpose),
  FOREIGN KEY (project_id, user_id) REFERENCES users (project_id, id) ON DELETE CASCADE
);
CREATE INDEX user_codes_token ON user_codes (project_id, purpose, token_hash);
CREATE INDEX user_codes_expiry ON user_codes (expires_at);

-- Values of profile fields the users schema declares unique (other than email), written in the
-- same transaction as the profile: two signups racing for one username cannot both commit.
-- Keyed by a digest of the canonical jsonb text, so any value size fits the index.
CREATE TABLE user_unique_values (
  project_id text NOT NULL,
  field text NOT NULL,
  value_digest bytea NOT NULL,
  user_id text NOT NULL,
  PRIMARY KEY (project_id, field, value_digest),
  FOREIGN KEY (project_id, user_id) REFERENCES users (project_id, id) ON DELETE CASCADE
);
CREATE INDEX user_unique_values_user ON user_unique_values (project_id, user_id);

-- The users schema of a project. `json`, not `jsonb`: field definitions come back exactly as
-- given (key order included), as the contract says.
CREATE TABLE users_schemas (
  project_id text PRIMARY KEY,
  fields json NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE users_schemas;
DROP TABLE user_unique_values;
DROP TABLE user_codes;
DROP TABLE users;
