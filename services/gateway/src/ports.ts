import type { KeyType, ProjectId, ProjectSettingsClaim } from '@baas/common';

export interface ResolvedProject {
  projectId: ProjectId;
  keyType: KeyType | null;
  allowedOrigins: string[];
  settings: ProjectSettingsClaim;
}

/** Asks the owner of projects (the auth service) who a key or project id belongs to. */
export interface ProjectDirectory {
  byKeyHash(keyHash: string, requestId: string): Promise<ResolvedProject | null>;
  byId(projectId: string, requestId: string): Promise<ResolvedProject | null>;
  /** Forget what is cached about a project (no-op for an uncached directory). */
  invalidateProject?(projectId: string): void;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export interface RateLimiter {
  consume(key: string): Promise<RateLimitResult>;
}
