import type { ProjectId } from '@baas/common';
import type { UsersSchemaRepository } from '../ports';
import type { SchemaField } from '../domain/users/users-schema';
import type { PgAuthDatabase } from './postgres-database';

/** One row per project; `fields` is `json`, so definitions come back exactly as given. */
export class PgUsersSchemaRepository implements UsersSchemaRepository {
  constructor(private readonly db: PgAuthDatabase) {}

  async get(projectId: ProjectId): Promise<SchemaField[] | null> {
    const { rows } = await this.db.run<{ fields: SchemaField[] }>(
      `SELECT fields FROM users_schemas WHERE project_id = $1`,
      [projectId],
    );
    return rows[0]?.fields ?? null;
  }

  async put(projectId: ProjectId, fields: SchemaField[]): Promise<void> {
    await this.db.run(
      `INSERT INTO users_schemas (project_id, fields, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (project_id) DO UPDATE SET fields = EXCLUDED.fields, updated_at = EXCLUDED.updated_at`,
      [projectId, JSON.stringify(fields), new Date()],
    );
  }

  async deleteProject(projectId: ProjectId): Promise<void> {
    await this.db.run(`DELETE FROM users_schemas WHERE project_id = $1`, [projectId]);
  }
}
