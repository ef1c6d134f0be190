-- Up Migration
-- The orphan sweep deletes a record whose object is gone only when it finds it gone on two
-- sweeps: the first sighting is remembered here (cleared when the object is found again).
ALTER TABLE files ADD COLUMN missing_since timestamptz;

-- Down Migration
ALTER TABLE files DROP COLUMN missing_since;
