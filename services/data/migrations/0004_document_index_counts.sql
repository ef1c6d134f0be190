-- Up Migration
-- How many entries each (collection, indexed path, value, trash flag) has: the total of a list
-- filtered by one equality on an indexed field, read from a few rows instead of counted over every
-- match (1,000 index entries for a 1% filter over 100,000 documents: the part of that list's cost
-- that grew with the collection).
--
-- A ledger, not one counter row: a writer never updates a row another transaction may hold. It
-- takes the key's rows that no one else holds (FOR UPDATE SKIP LOCKED), deletes them and inserts
-- one row with their sum plus its own change (none when that is 0). So writers never wait on each
-- other here and cannot deadlock whatever order their statements touch values in; rows another
-- transaction holds are folded by the next writer of the key. The total is the sum of the key's
-- rows, which is exact at the reading statement's snapshot; a key has about as many rows as it has
-- concurrent writers. A value no document holds any more has no row.
CREATE TABLE document_index_counts (
  project_id text NOT NULL,
  collection text NOT NULL,
  path text NOT NULL,
  value_key bytea NOT NULL,
  is_deleted boolean NOT NULL,
  n bigint NOT NULL
);
CREATE INDEX document_index_counts_key
  ON document_index_counts (project_id, collection, path, value_key, is_deleted);

-- Writers in flight finish before the counts are taken, and new ones wait for this migration:
-- every entry is then counted exactly once (by the backfill or by the new trigger).
LOCK TABLE document_index_values IN SHARE MODE;

INSERT INTO document_index_counts (project_id, collection, path, value_key, is_deleted, n)
SELECT project_id, collection, path, value_key, is_deleted, count(*)
FROM document_index_values GROUP BY project_id, collection, path, value_key, is_deleted;

-- Adds `delta` to a key's count (see the table).
CREATE FUNCTION document_index_count_add(p text, c text, pth text, k bytea, del boolean, delta bigint)
RETURNS void LANGUAGE sql AS $$
  WITH gone AS (
    DELETE FROM document_index_counts
    WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM document_index_counts
      WHERE project_id = p AND collection = c AND path = pth AND value_key = k AND is_deleted = del
      FOR UPDATE SKIP LOCKED))
    RETURNING n
  )
  INSERT INTO document_index_counts (project_id, collection, path, value_key, is_deleted, n)
  SELECT p, c, pth, k, del, s FROM (SELECT delta + coalesce(sum(n), 0) AS s FROM gone) t WHERE s <> 0
$$;

-- 0003's trigger, which now also keeps the counts: the entries of a changed path go and come as
-- before; the counts change by the net difference (an update that keeps a value and the trash
-- flag leaves that value's count alone).
CREATE OR REPLACE FUNCTION document_index_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  p text;
  c text;
  ix collection_indexes;
  i int;
  before jsonb;
  after jsonb;
  key bytea;
  change record;
BEGIN
  IF TG_OP = 'DELETE' THEN p := OLD.project_id; c := OLD.collection;
  ELSE p := NEW.project_id; c := NEW.collection; END IF;
  PERFORM pg_advisory_xact_lock_shared(7340, hashtext(p || '/' || c) & 63);
  SELECT * INTO ix FROM collection_indexes ci WHERE ci.project_id = p AND ci.collection = c;
  IF ix IS NULL THEN RETURN NULL; END IF;
  FOR i IN 1 .. cardinality(ix.paths) LOOP
    IF TG_OP <> 'INSERT' THEN before := jsonb_path_query_array(OLD.body, ix.selectors[i]); END IF;
    IF TG_OP <> 'DELETE' THEN after := jsonb_path_query_array(NEW.body, ix.selectors[i]); END IF;
    IF TG_OP = 'UPDATE' AND before = after AND OLD.is_deleted = NEW.is_deleted
       AND OLD.created_at = NEW.created_at THEN
      CONTINUE;
    END IF;
    IF TG_OP = 'INSERT' THEN
      -- the usual case, without the set operations below
      IF jsonb_array_length(after) = 1 AND jsonb_typeof(after -> 0) IN ('string', 'number', 'boolean') THEN
        key := document_index_key(after -> 0);
        INSERT INTO document_index_values (project_id, collection, path, value_key, is_deleted, created_at, id)
        VALUES (p, c, ix.paths[i], key, NEW.is_deleted, NEW.created_at, NEW.id);
        PERFORM document_index_count_add(p, c, ix.paths[i], key, NEW.is_deleted, 1);
        CONTINUE;
      END IF;
    END IF;
    IF TG_OP <> 'INSERT' AND jsonb_array_length(before) > 0 THEN
      DELETE FROM document_index_values v
      WHERE v.project_id = p AND v.collection = c AND v.path = ix.paths[i]
        AND v.value_key = ANY (document_index_keys(before))
        AND v.is_deleted = OLD.is_deleted AND v.created_at = OLD.created_at AND v.id = OLD.id;
    END IF;
    IF TG_OP <> 'DELETE' AND jsonb_array_length(after) > 0 THEN
      INSERT INTO document_index_values (project_id, collection, path, value_key, is_deleted, created_at, id)
      SELECT p, c, ix.paths[i], k, NEW.is_deleted, NEW.created_at, NEW.id
      FROM unnest(document_index_keys(after)) k;
    END IF;
    FOR change IN
      SELECT x.del, x.k, sum(x.d) AS d FROM (
        SELECT OLD.is_deleted AS del, k, -1 AS d FROM unnest(document_index_keys(before)) k
        WHERE TG_OP <> 'INSERT'
        UNION ALL
        SELECT NEW.is_deleted, k, 1 FROM unnest(document_index_keys(after)) k WHERE TG_OP <> 'DELETE'
      ) x GROUP BY x.del, x.k HAVING sum(x.d) <> 0
    LOOP
      PERFORM document_index_count_add(p, c, ix.paths[i], change.k, change.del, change.d);
    END LOOP;
  END LOOP;
  RETURN NULL;
END
$$;

-- Down Migration
-- 0003's trigger function again (without the counts).
CREATE OR REPLACE FUNCTION document_index_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  p text;
  c text;
  ix collection_indexes;
  i int;
  before jsonb;
  after jsonb;
BEGIN
  IF TG_OP = 'DELETE' THEN p := OLD.project_id; c := OLD.collection;
  ELSE p := NEW.project_id; c := NEW.collection; END IF;
  PERFORM pg_advisory_xact_lock_shared(7340, hashtext(p || '/' || c) & 63);
  SELECT * INTO ix FROM collection_indexes ci WHERE ci.project_id = p AND ci.collection = c;
  IF ix IS NULL THEN RETURN NULL; END IF;
  FOR i IN 1 .. cardinality(ix.paths) LOOP
    IF TG_OP <> 'INSERT' THEN before := jsonb_path_query_array(OLD.body, ix.selectors[i]); END IF;
    IF TG_OP <> 'DELETE' THEN after := jsonb_path_query_array(NEW.body, ix.selectors[i]); END IF;
    IF TG_OP = 'UPDATE' AND before = after AND OLD.is_deleted = NEW.is_deleted
       AND OLD.created_at = NEW.created_at THEN
      CONTINUE;
    END IF;
    IF TG_OP <> 'INSERT' AND jsonb_array_length(before) > 0 THEN
      DELETE FROM document_index_values v
      WHERE v.project_id = p AND v.collection = c AND v.path = ix.paths[i]
        AND v.value_key = ANY (document_index_keys(before))
        AND v.is_deleted = OLD.is_deleted AND v.created_at = OLD.created_at AND v.id = OLD.id;
    END IF;
    IF TG_OP <> 'DELETE' THEN
      IF jsonb_array_length(after) = 1 AND jsonb_typeof(after -> 0) IN ('string', 'number', 'boolean') THEN
        INSERT INTO document_index_values (project_id, collection, path, value_key, is_deleted, created_at, id)
        VALUES (p, c, ix.paths[i], document_index_key(after -> 0), NEW.is_deleted, NEW.created_at, NEW.id);
      ELSIF jsonb_array_length(after) > 1 THEN
        INSERT INTO document_index_values (project_id, collection, path, value_key, is_deleted, created_at, id)
        SELECT p, c, ix.paths[i], k, NEW.is_deleted, NEW.created_at, NEW.id
        FROM unnest(document_index_keys(after)) k;
      END IF;
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;
DROP FUNCTION document_index_count_add(text, text, text, bytea, boolean, bigint);
DROP TABLE document_index_counts;
