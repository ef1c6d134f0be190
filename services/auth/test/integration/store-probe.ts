import type { Db } from 'mongodb';
import type { ProjectId } from '@baas/common';
import type { Pool } from '@baas/common/postgres';

/** A stored refresh token as the tests look at it, whichever store holds it. */
export interface TokenRecord {
  hash: string;
  familyId: string;
  issuedAt: Date;
  expiresAt: Date;
  usedAt?: Date;
}

export type Countable = 'users' | 'refreshTokens' | 'families' | 'codes' | 'codeAttempts';

/**
 * What the suites check in the store behind the API (stored state, not responses), in the
 * terms of the tests, with one implementation per store.
 */
export interface StoreProbe {
  refreshTokens(p: ProjectId): Promise<TokenRecord[]>;
  /** Everything stored about the project's refresh tokens, as text (no plaintext may be in it). */
  refreshTokensRaw(p: ProjectId): Promise<string>;
  familyRevokedReasons(p: ProjectId): Promise<(string | undefined)[]>;
  count(what: Countable, p: ProjectId): Promise<number>;
  /** The project's first user: its password hash and everything stored about it, as text. */
  firstUser(p: ProjectId): Promise<{ passwordHash: string; raw: string } | null>;
  signingKeyRaw(kid: string): Promise<string | null>;
  /** The project's events still in the outbox (not yet published), each as stored, as text. */
  pendingEventsRaw(p: ProjectId): Promise<string[]>;
  setPasswordHash(p: ProjectId, hash: string): Promise<void>;
}

export function mongoProbe(db: Db): StoreProbe {
  const tokens = (p: ProjectId) => db.collection('refresh_tokens').find({ projectId: p }).toArray();
  return {
    async refreshTokens(p) {
      return (await tokens(p)).map((d) => ({
        hash: String(d._id),
        familyId: String(d.familyId),
        issuedAt: d.issuedAt as Date,
        expiresAt: d.expiresAt as Date,
        ...(d.usedAt ? { usedAt: d.usedAt as Date } : {}),
      }));
    },
    refreshTokensRaw: async (p) => JSON.stringify(await tokens(p)),
    async familyRevokedReasons(p) {
      const fams = await db.collection('session_families').find({ projectId: p }).toArray();
      return fams.map((f) => f.revokedReason as string | undefined);
    },
    async count(what, p) {
      switch (what) {
        case 'users':
          return db.collection('users').countDocuments({ projectId: p });
        case 'refreshTokens':
          return db.collection('refresh_tokens').countDocuments({ projectId: p });
        case 'families':
          return db.collection('session_families').countDocuments({ projectId: p });
        case 'codes': {
          let n = 0;
          for (const purpose of ['verify_email', 'reset_password'])
            n += await db
              .collection('users')
              .countDocuments({ projectId: p, [`codes.${purpose}`]: { $exists: true } });
          return n;
        }
        case 'codeAttempts':
          return db
            .collection<{ _id: string }>('code_claims')
            .countDocuments({ projectId: p, _id: { $not: /:used$/ } });
      }
    },
    async firstUser(p) {
      const d = await db.collection('users').findOne({ projectId: p });
      return d ? { passwordHash: String(d.passwordHash), raw: JSON.stringify(d) } : null;
    },
    async signingKeyRaw(kid) {
      const d = await db.collection<{ _id: string }>('signing_keys').findOne({ _id: kid });
      return d ? JSON.stringify(d) : null;
    },
    async pendingEventsRaw(p) {
      const docs = await db
        .collection('users')
        .find({ projectId: p, _outbox: { $exists: true } })
        .toArray();
      return docs.flatMap((d) => ((d._outbox as unknown[] | undefined) ?? []).map((e) => JSON.stringify(e)));
    },
    async setPasswordHash(p, hash) {
      await db.collection('users').updateOne({ projectId: p }, { $set: { passwordHash: hash } });
    },
  };
}

export function postgresProbe(pool: Pool): StoreProbe {
  const one = async (sql: string, params: unknown[]) => {
    const { rows } = await pool.query<{ n: number }>(sql, params);
    return Number(rows[0]?.n ?? 0);
  };
  return {
    async refreshTokens(p) {
      const { rows } = await pool.query(`SELECT * FROM refresh_tokens WHERE project_id = $1`, [p]);
      return rows.map((r) => ({
        hash: r.hash as string,
        familyId: r.family_id as string,
        issuedAt: r.issued_at as Date,
        expiresAt: r.expires_at as Date,
        ...(r.used_at ? { usedAt: r.used_at as Date } : {}),
      }));
    },
    async refreshTokensRaw(p) {
      return JSON.stringify(
        (await pool.query(`SELECT * FROM refresh_tokens WHERE project_id = $1`, [p])).rows,
      );
    },
    async familyRevokedReasons(p) {
      const { rows } = await pool.query(`SELECT revoked_reason FROM session_families WHERE project_id = $1`, [
        p,
      ]);
      return rows.map((r) => (r.revoked_reason as string | null) ?? undefined);
    },
    count(what, p) {
      switch (what) {
        case 'users':
          return one(`SELECT count(*) AS n FROM users WHERE project_id = $1`, [p]);
        case 'refreshTokens':
          return one(`SELECT count(*) AS n FROM refresh_tokens WHERE project_id = $1`, [p]);
        case 'families':
          return one(`SELECT count(*) AS n FROM session_families WHERE project_id = $1`, [p]);
        case 'codes':
          return one(`SELECT count(*) AS n FROM user_codes WHERE project_id = $1`, [p]);
        case 'codeAttempts':
          return one(`SELECT COALESCE(sum(attempts), 0) AS n FROM code_claims WHERE project_id = $1`, [p]);
      }
    },
    async firstUser(p) {
      const { rows } = await pool.query(
        `SELECT u.password_hash,
                json_build_object('user', row_to_json(u),
                  'codes', (SELECT json_agg(c) FROM user_codes c WHERE c.project_id = u.project_id AND c.user_id = u.id),
                  'unique', (SELECT json_agg(v) FROM user_unique_values v WHERE v.project_id = u.project_id AND v.user_id = u.id)
                ) AS raw
           FROM users u WHERE u.project_id = $1 ORDER BY u.created_at LIMIT 1`,
        [p],
      );
      const r = rows[0];
      return r ? { passwordHash: r.password_hash as string, raw: JSON.stringify(r.raw) } : null;
    },
    async pendingEventsRaw(p) {
      const { rows } = await pool.query<{ raw: string }>(
        `SELECT event::text AS raw FROM outbox WHERE event->>'projectId' = $1 ORDER BY seq`,
        [p],
      );
      return rows.map((r) => r.raw);
    },
    async signingKeyRaw(kid) {
      const { rows } = await pool.query(`SELECT row_to_json(k) AS raw FROM signing_keys k WHERE kid = $1`, [
        kid,
      ]);
      return rows[0] ? JSON.stringify(rows[0].raw) : null;
    },
    async setPasswordHash(p, hash) {
      await pool.query(`UPDATE users SET password_hash = $2 WHERE project_id = $1`, [p, hash]);
    },
  };
}
