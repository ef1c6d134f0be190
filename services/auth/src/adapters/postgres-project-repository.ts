import { trustedProjectId, type EventEnvelope, type KeyType, type ProjectId } from '@baas/common';
import type { PoolClient } from '@baas/common/postgres';
import type { Project, StoredKey, StoredSettings } from '../domain/projects/project';
import type { ProjectRepository } from '../ports';
import type { PgAuthDatabase } from './postgres-database';

type ProjectRow = {
  id: string;
  name: string;
  settings: StoredSettings;
  created_at: Date;
  updated_at: Date;
  pk_hash: string;
  pk_prefix: string;
  pk_created_at: Date;
  sk_hash: string;
  sk_prefix: string;
  sk_created_at: Date;
};

/** Projects with both their keys (a tombstone has none, so it never matches). */
const selectProjects = (extraColumns = '') => `
  SELECT ${extraColumns} p.id, p.name, p.settings, p.created_at, p.updated_at,
         pk.hash AS pk_hash, pk.prefix AS pk_prefix, pk.created_at AS pk_created_at,
         sk.hash AS sk_hash, sk.prefix AS sk_prefix, sk.created_at AS sk_created_at
    FROM projects p
    JOIN project_keys pk ON pk.project_id = p.id AND pk.key_type = 'publishable'
    JOIN project_keys sk ON sk.project_id = p.id AND sk.key_type = 'secret'`;

function toProject(r: ProjectRow): Project {
  return {
    id: trustedProjectId(r.id),
    name: r.name,
    settings: r.settings ?? {},
    keys: {
      publishable: { hash: r.pk_hash, prefix: r.pk_prefix, createdAt: r.pk_created_at },
      secret: { hash: r.sk_hash, prefix: r.sk_prefix, createdAt: r.sk_created_at },
    },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/**
 * Projects in `projects`, their keys in `project_keys` (hash as primary key). Every change is
 * one transaction with its events; changes to a project lock its row first, so a rotation and
 * a deletion racing each other are applied one after the other.
 */
export class PgProjectRepository implements ProjectRepository {
  constructor(private readonly db: PgAuthDatabase) {}

  async insert(p: Project, events: EventEnvelope[]): Promise<void> {
    await this.db.transaction(async (tx, emit) => {
      await tx.query(
        `INSERT INTO projects (id, name, settings, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)`,
        [p.id, p.name, JSON.stringify(p.settings), p.createdAt, p.updatedAt],
      );
      for (const type of ['publishable', 'secret'] as const) await insertKey(tx, p.id, type, p.keys[type]);
      await emit(events);
    });
  }

  async findById(id: ProjectId): Promise<Project | null> {
    const { rows } = await this.db.run<ProjectRow>(
      `${selectProjects()} WHERE p.id = $1 AND p.deleted_at IS NULL`,
      [id],
    );
    return rows[0] ? toProject(rows[0]) : null;
  }

  async findByKeyHash(hash: string): Promise<{ project: Project; keyType: KeyType } | null> {
    const { rows } = await this.db.run<ProjectRow & { key_type: KeyType }>(
      `${selectProjects('k.key_type,')}
         JOIN project_keys k ON k.project_id = p.id
        WHERE k.hash = $1 AND p.deleted_at IS NULL`,
      [hash],
    );
    const r = rows[0];
    return r ? { project: toProject(r), keyType: r.key_type } : null;
  }

  async update(
    id: ProjectId,
    changes: { name?: string; settings?: StoredSettings },
    events: EventEnvelope[],
  ): Promise<Project | null> {
    return this.db.transaction(async (tx, emit) => {
      const r = await tx.query(
        `UPDATE projects
            SET name = COALESCE($2, name), settings = COALESCE($3::jsonb, settings), updated_at = $4
          WHERE id = $1 AND deleted_at IS NULL`,
        [
          id,
          changes.name ?? null,
          changes.settings === undefined ? null : JSON.stringify(changes.settings),
          new Date(),
        ],
      );
      if (r.rowCount !== 1) return null;
      await emit(events);
      const { rows } = await tx.query<ProjectRow>(`${selectProjects()} WHERE p.id = $1`, [id]);
      return rows[0] ? toProject(rows[0]) : null;
    });
  }

  async replaceKey(id: ProjectId, type: KeyType, key: StoredKey, events: EventEnvelope[]): Promise<boolean> {
    return this.db.transaction(async (tx, emit) => {
      if (!(await touchLive(tx, id))) return false;
      await tx.query(
        `UPDATE project_keys SET hash = $3, prefix = $4, created_at = $5 WHERE project_id = $1 AND key_type = $2`,
        [id, type, key.hash, key.prefix, key.createdAt],
      );
      await emit(events);
      return true;
    });
  }

  async list(opts: { limit: number; before?: string; ids?: readonly ProjectId[] }): Promise<Project[]> {
    const { rows } = await this.db.run<ProjectRow>(
      `${selectProjects()}
        WHERE p.deleted_at IS NULL AND ($1::text IS NULL OR p.id < $1)
          AND ($3::text[] IS NULL OR p.id = ANY($3::text[]))
        ORDER BY p.id DESC
        LIMIT $2`,
      [opts.before ?? null, opts.limit, opts.ids ? [...opts.ids] : null],
    );
    return rows.map(toProject);
  }

  /** Keeps a tombstone without keys, so the deletion event and later lookups are unambiguous. */
  async markDeleted(id: ProjectId, events: EventEnvelope[]): Promise<boolean> {
    return this.db.transaction(async (tx, emit) => {
      const now = new Date();
      const r = await tx.query(
        `UPDATE projects SET deleted_at = $2, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL`,
        [id, now],
      );
      if (r.rowCount !== 1) return false;
      await tx.query(`DELETE FROM project_keys WHERE project_id = $1`, [id]);
      await emit(events);
      return true;
    });
  }
}

async function insertKey(tx: PoolClient, projectId: ProjectId, type: KeyType, key: StoredKey): Promise<void> {
  await tx.query(
    `INSERT INTO project_keys (hash, project_id, key_type, prefix, created_at) VALUES ($1, $2, $3, $4, $5)`,
    [key.hash, projectId, type, key.prefix, key.createdAt],
  );
}

/** Locks a live project's row for the rest of the transaction (false when there is none). */
async function touchLive(tx: PoolClient, id: ProjectId): Promise<boolean> {
  const r = await tx.query(`UPDATE projects SET updated_at = $2 WHERE id = $1 AND deleted_at IS NULL`, [
    id,
    new Date(),
  ]);
  return r.rowCount === 1;
}
