-- Up Migration
-- Attempts and use of one-time codes (the code is identified by its token digest). Both are
-- conditional upserts on this row, which PostgreSQL serialises: parallel guesses never take more
-- than the limit, and exactly one caller uses a code.
CREATE TABLE code_claims (
  project_id text NOT NULL,
  code_id text NOT NULL,
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  used boolean NOT NULL DEFAULT false,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (project_id, code_id)
);
CREATE INDEX code_claims_expiry ON code_claims (expires_at);

-- Access-token signing keys (platform-wide, not per project); the private half encrypted.
CREATE TABLE signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'retiring', 'retired')),
  public_jwk jsonb NOT NULL,
  private_wrapped text NOT NULL,
  created_at timestamptz NOT NULL,
  retiring_at timestamptz,
  retired_at timestamptz
);

-- Down Migration
DROP TABLE signing_keys;
DROP TABLE code_claims;
