import type { JsonWebKey } from 'node:crypto';
import type { SigningKeyRepository } from '../ports';
import type { SigningKeyStatus, StoredSigningKey } from '../domain/keys/signing-key';
import type { PgAuthDatabase } from './postgres-database';

type KeyRow = {
  kid: string;
  alg: 'EdDSA';
  status: SigningKeyStatus;
  public_jwk: JsonWebKey;
  private_wrapped: string;
  created_at: Date;
  retiring_at: Date | null;
  retired_at: Date | null;
};

function toKey(r: KeyRow): StoredSigningKey {
  const k: StoredSigningKey = {
    kid: r.kid,
    alg: r.alg,
    status: r.status,
    publicJwk: r.public_jwk,
    privateWrapped: r.private_wrapped,
    createdAt: r.created_at,
  };
  if (r.retiring_at) k.retiringAt = r.retiring_at;
  if (r.retired_at) k.retiredAt = r.retired_at;
  return k;
}

/** The platform's access-token signing keys (not per project). */
export class PgSigningKeyRepository implements SigningKeyRepository {
  constructor(private readonly db: PgAuthDatabase) {}

  async list(): Promise<StoredSigningKey[]> {
    const { rows } = await this.db.run<KeyRow>(`SELECT * FROM signing_keys ORDER BY created_at, kid`);
    return rows.map(toKey);
  }

  async insert(k: StoredSigningKey): Promise<void> {
    await this.db.run(
      `INSERT INTO signing_keys (kid, alg, status, public_jwk, private_wrapped, created_at, retiring_at, retired_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        k.kid,
        k.alg,
        k.status,
        JSON.stringify(k.publicJwk),
        k.privateWrapped,
        k.createdAt,
        k.retiringAt ?? null,
        k.retiredAt ?? null,
      ],
    );
  }

  async markRetiring(exceptKid: string, at: Date): Promise<void> {
    await this.db.run(
      `UPDATE signing_keys SET status = 'retiring', retiring_at = $2 WHERE status = 'active' AND kid <> $1`,
      [exceptKid, at],
    );
  }

  async retireRetiringBefore(cutoff: Date, at: Date): Promise<number> {
    const { rowCount } = await this.db.run(
      `UPDATE signing_keys SET status = 'retired', retired_at = $2 WHERE status = 'retiring' AND retiring_at < $1`,
      [cutoff, at],
    );
    return rowCount;
  }
}
