-- Up Migration
-- Every project's collections and documents share a few tables keyed by (project_id, collection):
-- 10,000 projects x 10 collections stay a handful of relations (a table per collection would be
-- ~600k relations). Every statement on them names the project; see the adapter.

CREATE TABLE collections (
  project_id text NOT NULL,
  name text NOT NULL,
  schema jsonb,
  rls jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (project_id, name)
);

-- The user's fields live in `body`; the fields the service manages are columns.
CREATE TABLE documents (
  project_id text NOT NULL,
  collection text NOT NULL,
  id text NOT NULL,
  body jsonb NOT NULL,
  is_deleted boolean NOT NULL DEFAULT false,
  deleted_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (project_id, collection, id)
) PARTITION BY HASH (project_id);

CREATE TABLE documents_p00 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 0);
CREATE TABLE documents_p01 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 1);
CREATE TABLE documents_p02 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 2);
CREATE TABLE documents_p03 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 3);
CREATE TABLE documents_p04 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 4);
CREATE TABLE documents_p05 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 5);
CREATE TABLE documents_p06 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 6);
CREATE TABLE documents_p07 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 7);
CREATE TABLE documents_p08 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 8);
CREATE TABLE documents_p09 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 9);
CREATE TABLE documents_p10 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 10);
CREATE TABLE documents_p11 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 11);
CREATE TABLE documents_p12 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 12);
CREATE TABLE documents_p13 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 13);
CREATE TABLE documents_p14 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 14);
CREATE TABLE documents_p15 PARTITION OF documents FOR VALUES WITH (MODULUS 16, REMAINDER 15);

-- The default list (newest first) and keyset pages in that order: an index range, any page.
CREATE INDEX documents_by_created ON documents (project_id, collection, is_deleted, created_at DESC, id DESC);
-- Equality filters and RLS owner scopes (`body @? '$.f ? (@ == v)'`).
CREATE INDEX documents_body ON documents USING gin (body jsonb_path_ops);
-- The janitor's purge: only trashed documents are in it, ordered by when they were trashed.
CREATE INDEX documents_trash ON documents (deleted_at) WHERE is_deleted;

-- Unique fields of a schema: one row per (collection, path, value), written in the same
-- transaction as the document, so a violation is exact under any concurrency. Values are
-- hashed (sha256 of the canonical jsonb text) so large values fit the index.
CREATE TABLE document_unique_values (
  project_id text NOT NULL,
  collection text NOT NULL,
  path text NOT NULL,
  value_hash bytea NOT NULL,
  document_id text NOT NULL,
  PRIMARY KEY (project_id, collection, path, value_hash)
);
CREATE INDEX document_unique_values_by_document ON document_unique_values (project_id, collection, document_id);

-- The project's document quota (trash included), checked and changed in the writing transaction.
CREATE TABLE project_document_counts (
  project_id text PRIMARY KEY,
  documents bigint NOT NULL CHECK (documents >= 0)
);

-- MongoDB's order of values of different types, for sorts and keyset pages over jsonb:
-- null (and missing) < numbers < strings < objects < arrays < booleans.
CREATE FUNCTION doc_type_rank(v jsonb) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(v)
    WHEN 'number' THEN 2 WHEN 'string' THEN 3 WHEN 'object' THEN 4
    WHEN 'array' THEN 5 WHEN 'boolean' THEN 8 ELSE 1 END
$$;

-- Down Migration
DROP FUNCTION doc_type_rank(jsonb);
DROP TABLE project_document_counts;
DROP TABLE document_unique_values;
DROP TABLE documents;
DROP TABLE collections;
