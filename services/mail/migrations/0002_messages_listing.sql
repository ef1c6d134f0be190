-- Up Migration
-- The admin API lists a project's sent mail newest first by (created_at, id), page by page; the
-- id breaks ties within a millisecond, so this index replaces the one on created_at alone.
CREATE INDEX messages_project_listing ON messages (project_id, created_at DESC, id DESC);
DROP INDEX messages_project_created_at;

-- Down Migration
CREATE INDEX messages_project_created_at ON messages (project_id, created_at DESC);
DROP INDEX messages_project_listing;
