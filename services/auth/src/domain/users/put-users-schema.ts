import type { ProjectId } from '@baas/common';
import type { UsersSchemaRepository } from '../../ports';
import type { SchemaField } from './users-schema';

/** Replaces the project's users schema; it applies to later signups and profile updates. */
export async function putUsersSchema(
  schemas: UsersSchemaRepository,
  projectId: ProjectId,
  fields: SchemaField[],
) {
  await schemas.put(projectId, fields);
  return { fields };
}
