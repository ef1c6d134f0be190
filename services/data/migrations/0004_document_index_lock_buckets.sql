-- Up Migration
-- The per-collection advisory lock of 0003 made a transaction that writes documents of many
-- collections hold one lock per collection until it commits: deleting 100,000 collections' rows
-- in one statement ran the server out of shared memory (its lock table). Writers now lock one of
-- 64 buckets (by a hash of project and collection), so a transaction holds at most 64 such locks;
-- a registration that changes indexed paths takes its collection's bucket exclusively, and the
-- writers of the other collections of that bucket wait as long as it writes the entries.
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

-- Down Migration
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
  PERFORM pg_advisory_xact_lock_shared(hashtextextended('document_index:' || p || '/' || c, 0));
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
