// Bulk seeding straight into the data service's PostgreSQL database (tables of
// services/data/migrations/0001_documents.sql), for sizes the API would take minutes to fill:
// the 1,000- and 100,000-document projects and the 10,000 background tenants. Connects as the
// superuser to the data service's database (POSTGRES_ADMIN_URL with DATA_DATABASE_URL's
// database name), so row-level security on those tables, if any, does not stand in the way.
import { TAGS } from './http.mjs';
import { workspaceModule } from './workspace-module.mjs';

const pg = workspaceModule('packages/common', 'pg');

export function dataAdminUrl(env) {
  const admin = new URL(env.POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  admin.pathname = new URL(env.DATA_DATABASE_URL).pathname;
  return admin.toString();
}

export async function withDataDb(env, fn) {
  const client = new pg.Client({ connectionString: dataAdminUrl(env) });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * The same documents the API would store ({ title, n, tag } in `body`), ids in ObjectId layout
 * (creation seconds, then a counter), createdAt 1 ms apart ending at $5; docs [$3, $4) of $7.
 */
const INSERT_DOCS = `
  INSERT INTO documents (project_id, collection, id, body, is_deleted, deleted_at, created_at, updated_at)
  SELECT $1, $2,
         lpad(to_hex(extract(epoch FROM t)::bigint), 8, '0') || lpad(to_hex($6::bigint + i), 16, '0'),
         jsonb_build_object('title', 'Document ' || i, 'n', i, 'tag', 'tag-' || (i % ${TAGS})),
         false, NULL, t, t
  FROM generate_series($3::int, $4::int - 1) AS i,
       LATERAL (SELECT $5::timestamptz - (($7::int - 1 - i) * interval '1 millisecond') AS t) AS ts`;

/** Seeds `count` documents into one project's collection and sets its document count. */
export async function bulkSeed(client, projectId, collection, count) {
  const end = new Date();
  const idBase = Math.floor(Math.random() * 2 ** 40);
  for (let from = 0; from < count; from += 20_000) {
    const to = Math.min(count, from + 20_000);
    // createdAt counts back from `end` over the whole range, so the chunks line up
    await client.query(INSERT_DOCS, [projectId, collection, from, to, end, idBase, count]);
  }
  await client.query(
    `INSERT INTO project_document_counts (project_id, documents) VALUES ($1, $2)
     ON CONFLICT (project_id) DO UPDATE SET documents = project_document_counts.documents + $2`,
    [projectId, count],
  );
  // The per-collection counters the service keeps with every write (list totals read them).
  await client.query(
    `INSERT INTO collection_counts (project_id, collection, live) VALUES ($1, $2, $3)
     ON CONFLICT (project_id, collection) DO UPDATE SET live = collection_counts.live + $3`,
    [projectId, collection, count],
  );
}

/** Background tenant ids: 24 hex like real project ids, derived from a bench-only seed. */
const tenantIds = (first, last) =>
  `SELECT substr(md5('baas-bench-tenant-' || p), 1, 24) AS pid FROM generate_series(${first}, ${last}) AS p`;

/**
 * 10,000 projects x 10 collections with `docsPerCollection` documents each, in the shared
 * tables, with the collection definition (schema, rls) of a real collection `like`.
 */
export async function seedTenants(client, { projects, collections, docsPerCollection, like }, onProgress) {
  const { rows } = await client.query(
    'SELECT schema, rls FROM collections WHERE project_id = $1 AND name = $2',
    [like.projectId, like.name],
  );
  if (!rows[0])
    throw new Error(`collection ${like.name} of ${like.projectId} not found in the data database`);
  const step = 250;
  for (let first = 1; first <= projects; first += step) {
    const last = Math.min(projects, first + step - 1);
    const ids = tenantIds(first, last);
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO collections (project_id, name, schema, rls, created_at, updated_at)
       SELECT t.pid, 'c' || c, $1, $2, now(), now() FROM (${ids}) t, generate_series(1, ${collections}) c`,
      [rows[0].schema, rows[0].rls],
    );
    await client.query(
      `INSERT INTO documents (project_id, collection, id, body, is_deleted, deleted_at, created_at, updated_at)
       SELECT t.pid, 'c' || c, lpad(to_hex(c * 100000 + d), 24, '0'),
              jsonb_build_object('title', 'Document ' || d, 'n', d, 'tag', 'tag-' || (d % ${TAGS})),
              false, NULL, now() - d * interval '1 second', now() - d * interval '1 second'
       FROM (${ids}) t, generate_series(1, ${collections}) c, generate_series(1, ${docsPerCollection}) d`,
    );
    await client.query(
      `INSERT INTO project_document_counts (project_id, documents)
       SELECT t.pid, ${collections * docsPerCollection} FROM (${ids}) t`,
    );
    await client.query(
      `INSERT INTO collection_counts (project_id, collection, live)
       SELECT t.pid, 'c' || c, ${docsPerCollection} FROM (${ids}) t, generate_series(1, ${collections}) c`,
    );
    await client.query('COMMIT');
    onProgress?.(last);
  }
}

export async function tenantCount(client, projects) {
  const { rows } = await client.query(
    `SELECT count(*)::int AS n FROM collections WHERE project_id IN (${tenantIds(1, projects)})`,
  );
  return rows[0].n;
}

export async function dropTenants(client, projects) {
  for (const table of ['documents', 'collections', 'project_document_counts', 'collection_counts']) {
    await client.query(`DELETE FROM ${table} WHERE project_id IN (${tenantIds(1, projects)})`);
  }
}

/**
 * VACUUM ANALYZE after a bulk insert: statistics for the planner and the visibility map for
 * index-only scans, i.e. what autovacuum would do shortly after; done here so that autovacuum
 * does not run during the measurement that follows.
 */
export async function analyze(client) {
  await client.query(
    'VACUUM (ANALYZE) documents, collections, project_document_counts, collection_counts, document_index_values, document_index_counts',
  );
  // the bulk's dirty pages written now, not by the checkpointer during the next measurement
  // (the million documents of the background tenants dirty hundreds of MB of pages, which the
  // checkpointer would otherwise spread over its next 4.5 minutes)
  await client.query('CHECKPOINT');
}
