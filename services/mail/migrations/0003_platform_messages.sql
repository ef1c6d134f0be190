-- Up Migration
-- The platform's own mails that belong to no project (a console account's password reset) are
-- logged with project_id NULL. A message id is unique on its own (24 hex: seconds, then 8 random
-- bytes), so it becomes the key; the listing index serves a project's log and the platform's
-- (project_id IS NULL) alike.
ALTER TABLE messages DROP CONSTRAINT messages_pkey;
ALTER TABLE messages ALTER COLUMN project_id DROP NOT NULL;
ALTER TABLE messages ADD PRIMARY KEY (id);

-- Down Migration
DELETE FROM messages WHERE project_id IS NULL;
ALTER TABLE messages DROP CONSTRAINT messages_pkey;
ALTER TABLE messages ALTER COLUMN project_id SET NOT NULL;
ALTER TABLE messages ADD PRIMARY KEY (project_id, id);
