-- Up Migration
-- The admin API lists a project's files newest first by (created_at, path), page by page.
CREATE INDEX files_project_listing ON files (project_id, created_at DESC, path DESC) WHERE status = 'complete';

-- Down Migration
DROP INDEX files_project_listing;
