import type { ConsoleSessionRepository } from '../ports';
import type { ConsoleSessionRecord } from '../domain/console/account';
import type { PgAuthDatabase } from './postgres-database';

type SessionRow = {
  id: string;
  account_id: string;
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  client_ip: string | null;
  user_agent: string | null;
};

function toSession(r: SessionRow): ConsoleSessionRecord {
  const s: ConsoleSessionRecord = {
    id: r.id,
    accountId: r.account_id,
    tokenHash: r.token_hash,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    clientIp: r.client_ip,
    userAgent: r.user_agent,
  };
  if (r.revoked_at) s.revokedAt = r.revoked_at;
  return s;
}

/** Console sessions in `console_sessions`, looked up by the token's SHA-256 (unique index). */
export class PgConsoleSessionRepository implements ConsoleSessionRepository {
  constructor(private readonly db: PgAuthDatabase) {}

  async insert(s: ConsoleSessionRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO console_sessions (id, account_id, token_hash, created_at, expires_at, client_ip, user_agent)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [s.id, s.accountId, s.tokenHash, s.createdAt, s.expiresAt, s.clientIp, s.userAgent],
    );
  }

  async findByTokenHash(tokenHash: string): Promise<ConsoleSessionRecord | null> {
    const { rows } = await this.db.run<SessionRow>(`SELECT * FROM console_sessions WHERE token_hash = $1`, [
      tokenHash,
    ]);
    return rows[0] ? toSession(rows[0]) : null;
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    const { rowCount } = await this.db.run(
      `UPDATE console_sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`,
      [id, at],
    );
    return rowCount === 1;
  }

  async revokeAccount(accountId: string, at: Date, exceptId?: string): Promise<number> {
    const { rowCount } = await this.db.run(
      `UPDATE console_sessions SET revoked_at = $2
        WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > $2 AND ($3::text IS NULL OR id <> $3)`,
      [accountId, at, exceptId ?? null],
    );
    return rowCount;
  }

  async purgeExpired(cutoff: Date, limit: number): Promise<number> {
    const { rowCount } = await this.db.run(
      `DELETE FROM console_sessions WHERE id IN (
         SELECT id FROM console_sessions WHERE expires_at < $1 OR revoked_at < $1 LIMIT $2
         FOR UPDATE SKIP LOCKED)`,
      [cutoff, limit],
    );
    return rowCount;
  }
}
