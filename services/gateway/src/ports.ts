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

/** The gateway's limiters, by the name metrics know them by. */
export type LimiterName = 'global' | 'auth';

/** Why a forwarded request got no answer from its service. */
export type UpstreamFailure = 'unavailable' | 'timeout' | 'reset' | 'broken';

/** What the gateway reports for metrics (no metrics library behind this interface). */
export interface GatewayObserver {
  rateLimited(limiter: LimiterName): void;
  /** A service answered; `seconds` from sending the request to the answer's last byte. */
  upstreamAnswered(target: string, status: number, seconds: number): void;
  upstreamFailed(target: string, reason: UpstreamFailure): void;
}
