import type { KeyType, ProjectId, EventEnvelope } from '@baas/common';
import type { Project, StoredKey, StoredSettings } from './domain/projects/project';

/** Projects and their keys, in the auth service's own database. */
export interface ProjectRepository {
  insert(project: Project, events: EventEnvelope[]): Promise<void>;
  findById(id: ProjectId): Promise<Project | null>;
  findByKeyHash(hash: string): Promise<{ project: Project; keyType: KeyType } | null>;
  update(
    id: ProjectId,
    changes: { name?: string; settings?: StoredSettings },
    events: EventEnvelope[],
  ): Promise<Project | null>;
  replaceKey(id: ProjectId, type: KeyType, key: StoredKey, events: EventEnvelope[]): Promise<boolean>;
  markDeleted(id: ProjectId, events: EventEnvelope[]): Promise<boolean>;
}

/** Tells every gateway to drop what it cached about a project, at once (core NATS). */
export interface CacheInvalidator {
  projectChanged(projectId: ProjectId): void;
}

export interface IdGenerator {
  projectId(): ProjectId;
}
