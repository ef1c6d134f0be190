-- Up Migration
-- Declared indexes (`index: true` on a schema field). The shared GIN index answers an equality
-- filter but must visit every matching row to check it (jsonb_path_ops is lossy), so a filter's
-- total cost what it matched: 1,000 heap visits for a 1% filter over 100,000 documents. An entry
-- per (document, indexed path, scalar value) in one b-tree makes that total an index-only count
-- and the newest page of the filter an index range, whatever the collection holds.

-- The indexed paths of a collection, set by the data service when a collection is registered
-- (in the transaction that writes the entries of its existing documents).
CREATE TABLE collection_indexes (
  project_id text NOT NULL,
  collection text NOT NULL,
  paths text[] NOT NULL,
  -- per path, where an equality filter finds values: the path as jsonpath's lax mode reads it
  -- (through arrays along the way) and the elements of an array found there
  selectors jsonpath[] NOT NULL,
  PRIMARY KEY (project_id, collection)
);

CREATE TABLE document_index_values (
  project_id text NOT NULL,
  collection text NOT NULL,
  path text NOT NULL,
  value_key bytea NOT NULL,
  is_deleted boolean NOT NULL,
  created_at timestamptz NOT NULL,
  id text NOT NULL
);
CREATE UNIQUE INDEX document_index_values_lookup
  ON document_index_values (project_id, collection, path, value_key, is_deleted, created_at DESC, id DESC);

-- The key of one scalar as an equality filter compares it (MongoDB's semantics: 1 = 1.0, and no
-- value equals one of another type): the JSON text, numbers without trailing zeros, hashed so any
-- length fits the b-tree. STABLE as convert_to is, so that it is inlined where it is called.
CREATE FUNCTION document_index_key(v jsonb) RETURNS bytea
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT sha256(convert_to(CASE jsonb_typeof(v)
    WHEN 'number' THEN 'n:' || trim_scale(v::text::numeric)::text
    ELSE v::text END, 'UTF8'))
$$;

-- The keys of one path of a body: `found` is what the path's selector finds.
CREATE FUNCTION document_index_keys(found jsonb) RETURNS bytea[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT document_index_key(e)), '{}')
  FROM jsonb_array_elements(found) e WHERE jsonb_typeof(e) IN ('string', 'number', 'boolean')
$$;

-- Entries follow every write of a document, whatever statement made it. Every write holds a
-- shared advisory lock on its collection's bucket (one of 64, by a hash of project and
-- collection: a lock per collection ran the server's lock table out of shared memory when one
-- statement deleted 100,000 collections' rows); a registration that changes the indexed paths
-- takes its bucket exclusively, without waiting (see the adapter), and writes the entries of
-- existing documents with no write of those collections in flight.
-- A plain loop over the paths: one INSERT ... VALUES for the usual single value costs a third of
-- a set-returning INSERT ... SELECT in a trigger.
CREATE FUNCTION document_index_sync() RETURNS trigger
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

CREATE TRIGGER documents_index_sync AFTER INSERT OR UPDATE OR DELETE ON documents
  FOR EACH ROW EXECUTE FUNCTION document_index_sync();

-- Down Migration
DROP TRIGGER documents_index_sync ON documents;
DROP FUNCTION document_index_sync();
DROP FUNCTION document_index_keys(jsonb);
DROP FUNCTION document_index_key(jsonb);
DROP TABLE document_index_values;
DROP TABLE collection_indexes;
