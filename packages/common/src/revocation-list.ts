import type { EventEnvelope } from './events/envelope';

/**
 * Access tokens that were revoked before they expire, held in memory by every replica of every
 * service that accepts them. Fed by auth's events (see revocation-feed.ts); a lookup is two map
 * reads, so checking costs no I/O per request.
 *
 * - A session (`sid`, one refresh family): every access token of it is refused (logout, refresh
 *   reuse, password change or reset ending the other sessions).
 * - A user: every token issued before a time is refused (user deletion refuses all of them).
 *
 * An entry is needed only while a token it refuses could still be valid, so it expires
 * `windowMs` (the longest access-token lifetime a verifier accepts, plus clock tolerance) after
 * the revocation. Memory is bounded by the revocations of one such window.
 */
export interface RevocationCheck {
  isRevoked(projectId: string, token: { userId: string; sessionId: string; issuedAt: number }): boolean;
}

interface UserEntry {
  /** Tokens issued (iat, in ms) before this are refused; Infinity refuses all. */
  beforeMs: number;
  expiresAtMs: number;
}

const key = (projectId: string, id: string) => `${projectId}\u0000${id}`;

export class RevocationList implements RevocationCheck {
  private readonly sessions = new Map<string, number>();
  private readonly users = new Map<string, UserEntry>();

  constructor(
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.sessions.size + this.users.size;
  }

  revokeSession(projectId: string, sessionId: string, revokedAtMs: number): void {
    const expiresAtMs = revokedAtMs + this.windowMs;
    if (expiresAtMs <= this.now()) return;
    const k = key(projectId, sessionId);
    this.sessions.set(k, Math.max(expiresAtMs, this.sessions.get(k) ?? 0));
  }

  revokeUser(projectId: string, userId: string, beforeMs: number, revokedAtMs: number): void {
    const expiresAtMs = revokedAtMs + this.windowMs;
    if (expiresAtMs <= this.now()) return;
    const k = key(projectId, userId);
    const prev = this.users.get(k);
    this.users.set(k, {
      beforeMs: Math.max(beforeMs, prev?.beforeMs ?? -Infinity),
      expiresAtMs: Math.max(expiresAtMs, prev?.expiresAtMs ?? 0),
    });
  }

  isRevoked(projectId: string, token: { userId: string; sessionId: string; issuedAt: number }): boolean {
    const now = this.now();
    const s = this.sessions.get(key(projectId, token.sessionId));
    if (s !== undefined && s > now) return true;
    const u = this.users.get(key(projectId, token.userId));
    // iat has whole seconds: a token of the revocation's own second counts as issued before it.
    return u !== undefined && u.expiresAtMs > now && token.issuedAt * 1000 < u.beforeMs;
  }

  /** Applies one of auth's events; false for events that revoke nothing. */
  apply(event: EventEnvelope): boolean {
    const at = Date.parse(event.occurredAt);
    if (!Number.isFinite(at)) return false;
    if (event.type === 'auth.session_revoked') {
      const e = event as EventEnvelope<'auth.session_revoked'>;
      this.revokeSession(e.projectId, e.data.sessionId, at);
      return true;
    }
    if (event.type === 'user.deleted') {
      // The user can get no new token, so every token of theirs is refused.
      const e = event as EventEnvelope<'user.deleted'>;
      this.revokeUser(e.projectId, e.data.userId, Infinity, at);
      return true;
    }
    return false;
  }

  /** Drops entries that can no longer refuse a valid token. */
  sweep(): number {
    const now = this.now();
    let dropped = 0;
    for (const [k, exp] of this.sessions)
      if (exp <= now) {
        this.sessions.delete(k);
        dropped++;
      }
    for (const [k, e] of this.users)
      if (e.expiresAtMs <= now) {
        this.users.delete(k);
        dropped++;
      }
    return dropped;
  }
}
