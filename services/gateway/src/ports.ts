import type { ConsoleSessionResolution, KeyType, ProjectId, ProjectSettingsClaim } from '@baas/common';

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

/** Asks the owner of console accounts (the auth service) whose live session a cookie is. */
export interface ConsoleSessions {
  /** By the token's hash (consoleSessionTokenHash); null when unknown, expired or revoked. */
  resolve(tokenHash: string, requestId: string): Promise<ConsoleSessionResolution | null>;
  /** Whether `resolve` would answer from memory (false for an uncached port). */
  has?(tokenHash: string): boolean;
  /** Forget what is cached about an account's sessions, one session (and its account's), or all. */
  invalidateAccount?(accountId: string): void;
  forgetSession?(tokenHash: string): void;
  clear?(): void;
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
export type LimiterName = 'global' | 'auth' | 'admin';

/** Why a forwarded request got no answer from its service. */
export type UpstreamFailure = 'unavailable' | 'timeout' | 'reset' | 'broken';

/** What the gateway reports for metrics (no metrics library behind this interface). */
export interface GatewayObserver {
  rateLimited(limiter: LimiterName): void;
  /** A service answered; `seconds` from sending the request to the answer's last byte. */
  upstreamAnswered(target: string, status: number, seconds: number): void;
  upstreamFailed(target: string, reason: UpstreamFailure): void;
}
