-- Up Migration
-- How many live and trashed documents each collection holds, changed in the same statement or
-- transaction as the documents: a list's total without filters is one row, not a count over the
-- collection (a count(*) costs what the collection holds).
CREATE TABLE collection_counts (
  project_id text NOT NULL,
  collection text NOT NULL,
  live bigint NOT NULL DEFAULT 0 CHECK (live >= 0),
  trashed bigint NOT NULL DEFAULT 0 CHECK (trashed >= 0),
  PRIMARY KEY (project_id, collection)
);

INSERT INTO collection_counts (project_id, collection, live, trashed)
SELECT project_id, collection, count(*) FILTER (WHERE NOT is_deleted), count(*) FILTER (WHERE is_deleted)
FROM documents GROUP BY project_id, collection;

-- Down Migration
DROP TABLE collection_counts;
