import { trustedProjectId, type EventEnvelope, type ProjectId } from '@baas/common';
import { appendOutbox, withTransaction, type Pool } from '@baas/common/postgres';
import type { CollectionCatalogue } from '../../ports';
import type { CollectionDef, CollectionSchema, RlsConfig } from '../../domain/collections/collection';

interface Row {
  project_id: string;
  name: string;
  schema: CollectionSchema | null;
  rls: RlsConfig;
  created_at: Date;
  updated_at: Date;
}

/** Definitions are read on every data request: a short cache, cleared locally on every change. */
const CACHE_TTL_MS = 2000;
const CACHE_MAX = 10_000;

function toDef(r: Row): CollectionDef {
  return {
    projectId: trustedProjectId(r.project_id),
    name: r.name,
    schema: r.schema,
    rls: r.rls,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export class PgCollectionCatalogue implements CollectionCatalogue {
  private readonly cache = new Map<string, { def: CollectionDef | null; at: number }>();

  constructor(
    private readonly pool: Pool,
    private readonly afterCommit: () => void,
  ) {}

  private key(projectId: ProjectId, name: string): string {
    return `${projectId}:${name}`;
  }

  async get(
    projectId: ProjectId,
    name: string,
    opts: { fresh?: boolean } = {},
  ): Promise<CollectionDef | null> {
    const key = this.key(projectId, name);
    const hit = opts.fresh ? undefined : this.cache.get(key);
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.def;
    const { rows } = await this.pool.query<Row>(
      'SELECT * FROM collections WHERE project_id = $1 AND name = $2',
      [projectId, name],
    );
    const def = rows[0] ? toDef(rows[0]) : null;
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(key, { def, at: Date.now() });
    return def;
  }

  async list(projectId: ProjectId): Promise<CollectionDef[]> {
    const { rows } = await this.pool.query<Row>(
      'SELECT * FROM collections WHERE project_id = $1 ORDER BY name COLLATE "C"',
      [projectId],
    );
    return rows.map(toDef);
  }

  async save(def: CollectionDef, events: EventEnvelope[]): Promise<boolean> {
    this.cache.delete(this.key(def.projectId, def.name));
    const created = await withTransaction(this.pool, async (tx) => {
      const { rows } = await tx.query<{ created: boolean }>(
        `INSERT INTO collections (project_id, name, schema, rls, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (project_id, name) DO UPDATE
           SET schema = EXCLUDED.schema, rls = EXCLUDED.rls, updated_at = EXCLUDED.updated_at
         RETURNING (xmax = 0) AS created`,
        [
          def.projectId,
          def.name,
          JSON.stringify(def.schema),
          JSON.stringify(def.rls),
          def.createdAt,
          def.updatedAt,
        ],
      );
      await appendOutbox(tx, events);
      return rows[0]?.created === true;
    });
    this.cache.delete(this.key(def.projectId, def.name));
    this.afterCommit();
    return created;
  }

  async remove(projectId: ProjectId, name: string, events: EventEnvelope[]): Promise<boolean> {
    this.cache.delete(this.key(projectId, name));
    const removed = await withTransaction(this.pool, async (tx) => {
      const r = await tx.query('DELETE FROM collections WHERE project_id = $1 AND name = $2', [
        projectId,
        name,
      ]);
      if (r.rowCount !== 1) return false;
      await appendOutbox(tx, events);
      return true;
    });
    this.cache.delete(this.key(projectId, name));
    if (removed) this.afterCommit();
    return removed;
  }

  async removeProject(projectId: ProjectId): Promise<void> {
    await this.pool.query('DELETE FROM collections WHERE project_id = $1', [projectId]);
    for (const k of this.cache.keys()) if (k.startsWith(`${projectId}:`)) this.cache.delete(k);
  }
}
