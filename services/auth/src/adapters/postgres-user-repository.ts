import type { EventEnvelope, ProjectId } from '@baas/common';
import type { PoolClient, Queryable } from '@baas/common/postgres';
import {
  DuplicateEmailError,
  DuplicateProfileValueError,
  type CodeEffects,
  type NewUser,
  type UserRepository,
} from '../ports';
import { normalizeEmail, type CodePurpose, type StoredCode, type User } from '../domain/users/user';
import { run, type PgAuthDatabase } from './postgres-database';

type CodeJson = {
  purpose: CodePurpose;
  tokenHash: string;
  otpHash: string;
  attempts: number;
  createdAt: string;
  expiresAt: string;
};

type UserRow = {
  id: string;
  project_id: string;
  email: string;
  email_verified: boolean;
  password_hash: string;
  profile: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  codes: CodeJson[];
};

/** A user with its codes (json dates are ISO strings). `u` is the users table. */
const USER_COLUMNS = `
  u.id, u.project_id, u.email, u.email_verified, u.password_hash, u.profile, u.created_at, u.updated_at,
  (SELECT COALESCE(json_agg(json_build_object(
            'purpose', c.purpose, 'tokenHash', c.token_hash, 'otpHash', c.otp_hash,
            'attempts', c.attempts, 'createdAt', c.created_at, 'expiresAt', c.expires_at)), '[]'::json)
     FROM user_codes c WHERE c.project_id = u.project_id AND c.user_id = u.id) AS codes`;

function toUser(r: UserRow): User {
  const codes: User['codes'] = {};
  for (const c of r.codes)
    codes[c.purpose] = {
      tokenHash: c.tokenHash,
      otpHash: c.otpHash,
      attempts: c.attempts,
      createdAt: new Date(c.createdAt),
      expiresAt: new Date(c.expiresAt),
    };
  return {
    id: r.id,
    projectId: r.project_id as ProjectId,
    email: r.email,
    emailVerified: r.email_verified,
    passwordHash: r.password_hash,
    profile: r.profile ?? {},
    codes,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

async function loadUser(db: Queryable, projectId: ProjectId, userId: string): Promise<User | null> {
  const { rows } = await run<UserRow>(
    db,
    `SELECT ${USER_COLUMNS} FROM users u WHERE u.project_id = $1 AND u.id = $2`,
    [projectId, userId],
  );
  return rows[0] ? toUser(rows[0]) : null;
}

/**
 * End users in `users`, their one-time codes in `user_codes`, the values of their unique profile
 * fields in `user_unique_values`. Each change is one transaction with its events; conditional
 * changes (password compare-and-set, code issue and consumption) are single conditional
 * statements, which PostgreSQL re-checks against the latest row when writers race.
 */
export class PgUserRepository implements UserRepository {
  constructor(private readonly db: PgAuthDatabase) {}

  async insert(
    projectId: ProjectId,
    u: NewUser,
    events: EventEnvelope[],
    uniqueKeys: readonly string[] = [],
  ): Promise<User> {
    await this.db.transaction(async (tx, emit) => {
      const r = await tx.query(
        `INSERT INTO users (project_id, id, email, email_lower, password_hash, profile, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
         ON CONFLICT (project_id, email_lower) DO NOTHING`,
        [
          projectId,
          u.id,
          u.email,
          normalizeEmail(u.email),
          u.passwordHash,
          JSON.stringify(u.profile),
          u.createdAt,
        ],
      );
      if (r.rowCount !== 1) throw new DuplicateEmailError('email taken');
      for (const [purpose, code] of Object.entries(u.codes) as [CodePurpose, StoredCode][])
        await upsertCode(tx, projectId, u.id, purpose, code, null);
      await claimUniqueValues(tx, projectId, u.id, u.profile, uniqueKeys);
      await emit(events);
    });
    return {
      id: u.id,
      projectId,
      email: u.email,
      emailVerified: false,
      passwordHash: u.passwordHash,
      profile: u.profile,
      codes: u.codes,
      createdAt: u.createdAt,
      updatedAt: u.createdAt,
    };
  }

  findById(projectId: ProjectId, userId: string): Promise<User | null> {
    return loadUser(this.db.pool, projectId, userId);
  }

  async findByEmail(projectId: ProjectId, email: string): Promise<User | null> {
    const { rows } = await this.db.run<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users u WHERE u.project_id = $1 AND u.email_lower = $2`,
      [projectId, normalizeEmail(email)],
    );
    return rows[0] ? toUser(rows[0]) : null;
  }

  async findByProfileField(
    projectId: ProjectId,
    key: string,
    value: unknown,
    exceptUserId?: string,
  ): Promise<User | null> {
    // The username lookup (public profile) goes through its expression index.
    const byDigest =
      key === 'username' ? `AND md5((u.profile -> 'username')::text) = md5($3::jsonb::text)` : '';
    const { rows } = await this.db.run<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users u
        WHERE u.project_id = $1 AND u.profile -> $2 = $3::jsonb ${byDigest}
          AND ($4::text IS NULL OR u.id <> $4)
        ORDER BY u.created_at LIMIT 1`,
      [projectId, key, JSON.stringify(value) ?? null, exceptUserId ?? null],
    );
    return rows[0] ? toUser(rows[0]) : null;
  }

  async updateProfile(
    projectId: ProjectId,
    userId: string,
    set: Record<string, unknown>,
    unset: string[],
    events: EventEnvelope[],
    uniqueKeys: readonly string[] = [],
  ): Promise<User | null> {
    return this.db.transaction(async (tx, emit) => {
      const r = await tx.query(
        `UPDATE users SET profile = (profile || $3::jsonb) - $4::text[], updated_at = $5
          WHERE project_id = $1 AND id = $2`,
        [projectId, userId, JSON.stringify(set), unset, new Date()],
      );
      if (r.rowCount !== 1) return null;
      // Whatever the schema says now, the side table holds only current values of the user.
      await tx.query(
        `DELETE FROM user_unique_values WHERE project_id = $1 AND user_id = $2 AND field = ANY($3::text[])`,
        [projectId, userId, [...Object.keys(set), ...unset]],
      );
      await claimUniqueValues(tx, projectId, userId, set, uniqueKeys);
      await emit(events);
      return loadUser(tx, projectId, userId);
    });
  }

  async replacePasswordHash(
    projectId: ProjectId,
    userId: string,
    expectedHash: string,
    newHash: string,
    events: EventEnvelope[],
  ): Promise<boolean> {
    return this.db.transaction(async (tx, emit) => {
      const r = await tx.query(
        `UPDATE users SET password_hash = $4, updated_at = $5, password_changed_at = $5
          WHERE project_id = $1 AND id = $2 AND password_hash = $3`,
        [projectId, userId, expectedHash, newHash, new Date()],
      );
      if (r.rowCount !== 1) return false;
      await emit(events);
      return true;
    });
  }

  async setCode(
    projectId: ProjectId,
    userId: string,
    purpose: CodePurpose,
    code: StoredCode,
    events: EventEnvelope[],
    notIssuedAfter: Date,
  ): Promise<boolean> {
    return this.db.transaction(async (tx, emit) => {
      // Holds the user against a concurrent delete until the code is written.
      const user = await tx.query(`SELECT 1 FROM users WHERE project_id = $1 AND id = $2 FOR KEY SHARE`, [
        projectId,
        userId,
      ]);
      if (user.rowCount !== 1) return false;
      if (!(await upsertCode(tx, projectId, userId, purpose, code, notIssuedAfter))) return false;
      await emit(events);
      return true;
    });
  }

  async findByCodeToken(
    projectId: ProjectId,
    purpose: CodePurpose,
    tokenHash: string,
    now: Date,
  ): Promise<User | null> {
    const { rows } = await this.db.run<UserRow>(
      `SELECT ${USER_COLUMNS} FROM user_codes k
         JOIN users u ON u.project_id = k.project_id AND u.id = k.user_id
        WHERE k.project_id = $1 AND k.purpose = $2 AND k.token_hash = $3 AND k.expires_at > $4
        LIMIT 1`,
      [projectId, purpose, tokenHash, now],
    );
    return rows[0] ? toUser(rows[0]) : null;
  }

  async consumeCode(
    projectId: ProjectId,
    userId: string,
    purpose: CodePurpose,
    tokenHash: string,
    effects: CodeEffects,
    events: EventEnvelope[],
  ): Promise<User | null> {
    return this.db.transaction(async (tx, emit) => {
      const now = new Date();
      const gone = await tx.query(
        `DELETE FROM user_codes
          WHERE project_id = $1 AND user_id = $2 AND purpose = $3 AND token_hash = $4 AND expires_at > $5`,
        [projectId, userId, purpose, tokenHash, now],
      );
      if (gone.rowCount !== 1) return null;
      await tx.query(
        `UPDATE users
            SET updated_at = $3,
                email_verified = email_verified OR $4,
                password_hash = COALESCE($5, password_hash),
                password_changed_at = CASE WHEN $5::text IS NULL THEN password_changed_at ELSE $3 END
          WHERE project_id = $1 AND id = $2`,
        [projectId, userId, now, effects.emailVerified === true, effects.passwordHash ?? null],
      );
      await emit(events);
      return loadUser(tx, projectId, userId);
    });
  }

  /** A hard delete with its event in the same transaction; codes and unique values cascade. */
  async delete(projectId: ProjectId, userId: string, events: EventEnvelope[]): Promise<boolean> {
    return this.db.transaction(async (tx, emit) => {
      const r = await tx.query(`DELETE FROM users WHERE project_id = $1 AND id = $2`, [projectId, userId]);
      if (r.rowCount !== 1) return false;
      await emit(events);
      return true;
    });
  }

  /** The admin list: the primary key (project_id, id) serves the order; codes are not read. */
  async list(
    projectId: ProjectId,
    opts: { limit: number; before?: string; emailContains?: string },
  ): Promise<User[]> {
    const { rows } = await this.db.run<UserRow>(
      `SELECT u.id, u.project_id, u.email, u.email_verified, u.password_hash, u.profile,
              u.created_at, u.updated_at, '[]'::json AS codes
         FROM users u
        WHERE u.project_id = $1
          AND ($2::text IS NULL OR u.id < $2)
          AND ($3::text IS NULL OR strpos(u.email_lower, $3) > 0)
        ORDER BY u.id DESC
        LIMIT $4`,
      [projectId, opts.before ?? null, opts.emailContains ?? null, opts.limit],
    );
    return rows.map(toUser);
  }

  async deleteProject(projectId: ProjectId): Promise<number> {
    const { rowCount } = await this.db.run(`DELETE FROM users WHERE project_id = $1`, [projectId]);
    return rowCount;
  }

  /** Janitor: expired codes of every project, oldest first, at most `limit`. */
  async purgeExpiredCodes(cutoff: Date, limit: number): Promise<number> {
    const { rowCount } = await this.db.run(
      `DELETE FROM user_codes c
        USING (SELECT project_id, user_id, purpose FROM user_codes
                WHERE expires_at < $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED) x
        WHERE c.project_id = x.project_id AND c.user_id = x.user_id AND c.purpose = x.purpose`,
      [cutoff, limit],
    );
    return rowCount;
  }
}

/**
 * Stores a code of the purpose, replacing the previous one unless that one was issued after
 * `notIssuedAfter` (null: always). True when written.
 */
async function upsertCode(
  tx: PoolClient,
  projectId: ProjectId,
  userId: string,
  purpose: CodePurpose,
  code: StoredCode,
  notIssuedAfter: Date | null,
): Promise<boolean> {
  const r = await tx.query(
    `INSERT INTO user_codes (project_id, user_id, purpose, token_hash, otp_hash, attempts, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (project_id, user_id, purpose) DO UPDATE
        SET token_hash = EXCLUDED.token_hash, otp_hash = EXCLUDED.otp_hash, attempts = EXCLUDED.attempts,
            created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
      WHERE $9::timestamptz IS NULL OR user_codes.created_at <= $9`,
    [
      projectId,
      userId,
      purpose,
      code.tokenHash,
      code.otpHash,
      code.attempts,
      code.createdAt,
      code.expiresAt,
      notIssuedAfter,
    ],
  );
  return r.rowCount === 1;
}

/**
 * Records the user's values of the unique fields among `values`; a value another user of the
 * project holds (committed, or committed meanwhile by a racing transaction) aborts the write.
 */
async function claimUniqueValues(
  tx: PoolClient,
  projectId: ProjectId,
  userId: string,
  values: Record<string, unknown>,
  uniqueKeys: readonly string[],
): Promise<void> {
  for (const key of uniqueKeys) {
    const v = values[key];
    if (v === undefined || v === null) continue;
    const r = await tx.query(
      `INSERT INTO user_unique_values (project_id, field, value_digest, user_id)
       VALUES ($1, $2, sha256(convert_to($3::jsonb::text, 'UTF8')), $4)
       ON CONFLICT DO NOTHING`,
      [projectId, key, JSON.stringify(v), userId],
    );
    if (r.rowCount !== 1) throw new DuplicateProfileValueError(key);
  }
}
