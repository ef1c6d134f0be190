import type { Collection, Db } from 'mongodb';
import type { ProjectId } from '@baas/common';
import { upsertRacing } from '@baas/common/mongo';
import type { UsersSchemaRepository } from '../ports';
import type { SchemaField } from '../domain/users/users-schema';

interface SchemaDoc {
  _id: string;
  fields: SchemaField[];
  updatedAt: Date;
}

/** One document per project (its id is the project id). */
export class MongoUsersSchemaRepository implements UsersSchemaRepository {
  readonly coll: Collection<SchemaDoc>;
  constructor(db: Db) {
    this.coll = db.collection<SchemaDoc>('users_schemas');
  }

  async get(projectId: ProjectId): Promise<SchemaField[] | null> {
    const d = await this.coll.findOne({ _id: projectId });
    return d?.fields ?? null;
  }

  async put(projectId: ProjectId, fields: SchemaField[]): Promise<void> {
    await upsertRacing(() =>
      this.coll.replaceOne({ _id: projectId }, { fields, updatedAt: new Date() }, { upsert: true }),
    );
  }

  async deleteProject(projectId: ProjectId): Promise<void> {
    await this.coll.deleteOne({ _id: projectId });
  }
}
