import type { EventEnvelope } from '@baas/common';
import { DuplicateConsoleEmailError, type ConsoleAccountRepository } from '../ports';
import type { ConsoleAccount, ConsoleResetCode } from '../domain/console/account';
import { normalizeEmail } from '../domain/users/user';
import type { PgAuthDatabase } from './postgres-database';

type AccountRow = {
  id: string;
  email: string;
  password_hash: string;
  platform_admin: boolean;
  created_at: Date;
  updated_at: Date;
};

type CodeRow = { account_id: string; token_hash: string; created_at: Date; expires_at: Date };

const ACCOUNT_COLUMNS = 'id, email, password_hash, platform_admin, created_at, updated_at';

function toAccount(r: AccountRow): ConsoleAccount {
  return {
    id: r.id,
    email: r.email,
    passwordHash: r.password_hash,
    platformAdmin: r.platform_admin,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toCode(r: CodeRow): ConsoleResetCode {
  return {
    accountId: r.account_id,
    tokenHash: r.token_hash,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}

const UNIQUE_VIOLATION = '23505';

/**
 * Console accounts in `console_accounts` (email unique by its normalized form) and their reset
 * codes in `console_reset_codes` (migration 0006). Memberships, sessions and the reset code go
 * with a deleted account (ON DELETE CASCADE).
 */
export class PgConsoleAccountRepository implements ConsoleAccountRepository {
  constructor(private readonly db: PgAuthDatabase) {}

  async insert(a: ConsoleAccount): Promise<void> {
    try {
      await this.db.run(
        `INSERT INTO console_accounts (id, email, email_lower, password_hash, platform_admin, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [a.id, a.email, normalizeEmail(a.email), a.passwordHash, a.platformAdmin, a.createdAt, a.updatedAt],
      );
    } catch (e) {
      if ((e as { code?: unknown }).code === UNIQUE_VIOLATION)
        throw new DuplicateConsoleEmailError('email taken');
      throw e;
    }
  }

  async findById(id: string): Promise<ConsoleAccount | null> {
    const { rows } = await this.db.run<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM console_accounts WHERE id = $1`,
      [id],
    );
    return rows[0] ? toAccount(rows[0]) : null;
  }

  async findByEmail(email: string): Promise<ConsoleAccount | null> {
    const { rows } = await this.db.run<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM console_accounts WHERE email_lower = $1`,
      [normalizeEmail(email)],
    );
    return rows[0] ? toAccount(rows[0]) : null;
  }

  async list(opts: { limit: number; before?: string; emailContains?: string }): Promise<ConsoleAccount[]> {
    const { rows } = await this.db.run<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM console_accounts
        WHERE ($1::text IS NULL OR id < $1)
          AND ($2::text IS NULL OR strpos(email_lower, $2) > 0)
        ORDER BY id DESC
        LIMIT $3`,
      [opts.before ?? null, opts.emailContains ?? null, opts.limit],
    );
    return rows.map(toAccount);
  }

  async setPlatformAdmin(id: string, platformAdmin: boolean, at: Date): Promise<ConsoleAccount | null> {
    const { rows } = await this.db.run<AccountRow>(
      `UPDATE console_accounts SET platform_admin = $2, updated_at = $3 WHERE id = $1 RETURNING ${ACCOUNT_COLUMNS}`,
      [id, platformAdmin, at],
    );
    return rows[0] ? toAccount(rows[0]) : null;
  }

  async replacePasswordHash(id: string, expectedHash: string, newHash: string, at: Date): Promise<boolean> {
    const { rowCount } = await this.db.run(
      `UPDATE console_accounts SET password_hash = $3, updated_at = $4 WHERE id = $1 AND password_hash = $2`,
      [id, expectedHash, newHash, at],
    );
    return rowCount === 1;
  }

  async delete(id: string): Promise<boolean> {
    const { rowCount } = await this.db.run(`DELETE FROM console_accounts WHERE id = $1`, [id]);
    return rowCount === 1;
  }

  /** One row per account: the new code replaces an older one unless that one is too recent. */
  async putResetCode(
    code: ConsoleResetCode,
    events: EventEnvelope[],
    notIssuedAfter: Date,
  ): Promise<boolean> {
    return this.db.transaction(async (tx, emit) => {
      // Holds the account against a concurrent delete until the code is written.
      const account = await tx.query(`SELECT 1 FROM console_accounts WHERE id = $1 FOR KEY SHARE`, [
        code.accountId,
      ]);
      if (account.rowCount !== 1) return false;
      const r = await tx.query(
        `INSERT INTO console_reset_codes (account_id, token_hash, created_at, expires_at)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (account_id) DO UPDATE
            SET token_hash = EXCLUDED.token_hash, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
          WHERE console_reset_codes.created_at <= $5`,
        [code.accountId, code.tokenHash, code.createdAt, code.expiresAt, notIssuedAfter],
      );
      if (r.rowCount !== 1) return false;
      await emit(events);
      return true;
    });
  }

  async findResetCode(tokenHash: string, now: Date): Promise<ConsoleResetCode | null> {
    const { rows } = await this.db.run<CodeRow>(
      `SELECT account_id, token_hash, created_at, expires_at FROM console_reset_codes
        WHERE token_hash = $1 AND expires_at > $2`,
      [tokenHash, now],
    );
    return rows[0] ? toCode(rows[0]) : null;
  }

  /** The DELETE of the live code row is the single-use claim; the new hash commits with it. */
  async consumeResetCode(
    accountId: string,
    tokenHash: string,
    newPasswordHash: string,
    now: Date,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const gone = await tx.query(
        `DELETE FROM console_reset_codes WHERE account_id = $1 AND token_hash = $2 AND expires_at > $3`,
        [accountId, tokenHash, now],
      );
      if (gone.rowCount !== 1) return false;
      await tx.query(`UPDATE console_accounts SET password_hash = $2, updated_at = $3 WHERE id = $1`, [
        accountId,
        newPasswordHash,
        now,
      ]);
      return true;
    });
  }

  async purgeExpired(cutoff: Date, limit: number): Promise<number> {
    const { rowCount } = await this.db.run(
      `DELETE FROM console_reset_codes WHERE account_id IN (
         SELECT account_id FROM console_reset_codes WHERE expires_at < $1 ORDER BY expires_at LIMIT $2
         FOR UPDATE SKIP LOCKED)`,
      [cutoff, limit],
    );
    return rowCount;
  }
}
