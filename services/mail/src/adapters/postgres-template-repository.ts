import { trustedProjectId, type ProjectId } from '@baas/common';
import { prepared, type Pool } from '@baas/common/postgres';
import type { StoredTemplate, TemplateContent, TemplateOwner } from '../domain/templates/template';
import type { TemplateRepository } from '../ports';
import { newHexId } from './hex-ids';

interface TemplateRow {
  id: string;
  project_id: string | null;
  key: string;
  name: string;
  subject: string;
  body_html: string | null;
  body_text: string | null;
  mjml: string | null;
  compiled_html: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, project_id, key, name, subject, body_html, body_text, mjml, compiled_html, created_at, updated_at';

function toTemplate(r: TemplateRow): StoredTemplate {
  const owner: TemplateOwner =
    r.project_id === null
      ? { scope: 'global' }
      : { scope: 'project', projectId: trustedProjectId(r.project_id) };
  const t: StoredTemplate = {
    id: r.id,
    key: r.key,
    owner,
    name: r.name,
    subject: r.subject,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
  if (r.body_html !== null) t.html = r.body_html;
  if (r.body_text !== null) t.text = r.body_text;
  if (r.mjml !== null) t.mjml = r.mjml;
  if (r.compiled_html !== null) t.compiledHtml = r.compiled_html;
  return t;
}

/**
 * The owner as a WHERE condition and its parameters (a global template has no project), with
 * further parameters numbered after it. Every query names its owner this way.
 */
function ownerWhere(owner: TemplateOwner): { cond: string; params: unknown[]; next: number } {
  return owner.scope === 'global'
    ? { cond: 'project_id IS NULL', params: [], next: 1 }
    : { cond: 'project_id = $1', params: [owner.projectId], next: 2 };
}

/**
 * PostgreSQL text cannot hold U+0000, so no stored template has it: a lookup by such a string
 * (a client's templateName) is simply not found, as on MongoDB, instead of a database error.
 */
const storable = (s: string): boolean => !s.includes('\u0000');

/**
 * Templates in the `templates` table: a project's own (project_id) or global (project_id NULL).
 * The lookups a send makes are prepared (parsed and planned once per connection); they name their
 * columns, so a migration that adds one does not make them stale.
 */
export class PostgresTemplateRepository implements TemplateRepository {
  constructor(private readonly pool: Pool) {}

  /** One upsert: a new template, or the existing one's content replaced (its id and createdAt kept). */
  async save(owner: TemplateOwner, key: string, content: TemplateContent) {
    const id = newHexId();
    const target =
      owner.scope === 'global'
        ? '(key) WHERE project_id IS NULL'
        : '(project_id, key) WHERE project_id IS NOT NULL';
    const { rows } = await this.pool.query<TemplateRow>(
      `INSERT INTO templates (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), now())
       ON CONFLICT ${target} DO UPDATE SET
         name = EXCLUDED.name, subject = EXCLUDED.subject, body_html = EXCLUDED.body_html,
         body_text = EXCLUDED.body_text, mjml = EXCLUDED.mjml, compiled_html = EXCLUDED.compiled_html,
         updated_at = EXCLUDED.updated_at
       RETURNING ${COLUMNS}`,
      [
        id,
        owner.scope === 'global' ? null : owner.projectId,
        key,
        content.name,
        content.subject,
        content.html ?? null,
        content.text ?? null,
        content.mjml ?? null,
        content.compiledHtml ?? null,
      ],
    );
    const row = rows[0];
    if (!row) throw new Error('template upsert returned no row');
    return { template: toTemplate(row), created: row.id === id };
  }

  async findByKey(owner: TemplateOwner, key: string): Promise<StoredTemplate | null> {
    if (!storable(key)) return null;
    const o = ownerWhere(owner);
    const { rows } = await this.pool.query<TemplateRow>(
      prepared(`SELECT ${COLUMNS} FROM templates WHERE ${o.cond} AND key = $${o.next}`, [...o.params, key]),
    );
    return rows[0] ? toTemplate(rows[0]) : null;
  }

  async findByKeyOrName(owner: TemplateOwner, keyOrName: string): Promise<StoredTemplate | null> {
    if (!storable(keyOrName)) return null;
    const byKey = await this.findByKey(owner, keyOrName);
    if (byKey) return byKey;
    const o = ownerWhere(owner);
    const { rows } = await this.pool.query<TemplateRow>(
      prepared(
        `SELECT ${COLUMNS} FROM templates WHERE ${o.cond} AND name = $${o.next}
         ORDER BY created_at, id LIMIT 1`,
        [...o.params, keyOrName],
      ),
    );
    return rows[0] ? toTemplate(rows[0]) : null;
  }

  async findVisibleById(projectId: ProjectId, id: string): Promise<StoredTemplate | null> {
    const { rows } = await this.pool.query<TemplateRow>(
      prepared(`SELECT ${COLUMNS} FROM templates WHERE id = $2 AND (project_id = $1 OR project_id IS NULL)`, [
        projectId,
        id,
      ]),
    );
    return rows[0] ? toTemplate(rows[0]) : null;
  }

  async list(owner: TemplateOwner): Promise<StoredTemplate[]> {
    const o = ownerWhere(owner);
    // Binary order of keys, as on MongoDB, whatever the database's collation.
    const { rows } = await this.pool.query<TemplateRow>(
      `SELECT ${COLUMNS} FROM templates WHERE ${o.cond} ORDER BY key COLLATE "C" LIMIT 1000`,
      o.params,
    );
    return rows.map(toTemplate);
  }

  async delete(owner: TemplateOwner, key: string): Promise<StoredTemplate | null> {
    const o = ownerWhere(owner);
    const { rows } = await this.pool.query<TemplateRow>(
      `DELETE FROM templates WHERE ${o.cond} AND key = $${o.next} RETURNING ${COLUMNS}`,
      [...o.params, key],
    );
    return rows[0] ? toTemplate(rows[0]) : null;
  }

  async deleteAllOfProject(projectId: ProjectId): Promise<number> {
    const r = await this.pool.query('DELETE FROM templates WHERE project_id = $1', [projectId]);
    return r.rowCount ?? 0;
  }
}
