import {
  createCipheriv,
  createDecipheriv,
  generateKeyPairSync,
  randomBytes,
  randomUUID,
  type JsonWebKey,
} from 'node:crypto';

/**
 * Access tokens are signed with Ed25519 keys kept in the auth database. Lifecycle:
 * `active` (published; signs once it has been published for SIGNING_KEY_PUBLISH_AHEAD_MS) ->
 * `retiring` (a newer key was rotated in: signs only until that one may, still published until
 * every token it signed has expired) -> `retired` (no longer published).
 */
export type SigningKeyStatus = 'active' | 'retiring' | 'retired';

export interface StoredSigningKey {
  kid: string;
  alg: 'EdDSA';
  status: SigningKeyStatus;
  publicJwk: JsonWebKey;
  /** The private JWK, AES-256-GCM encrypted: iv.tag.ciphertext, base64url. */
  privateWrapped: string;
  createdAt: Date;
  retiringAt?: Date;
  retiredAt?: Date;
}

export function generateSigningKey(wrapKey: Buffer, now: Date): StoredSigningKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const kid = randomUUID();
  return {
    kid,
    alg: 'EdDSA',
    status: 'active',
    publicJwk: publicKey.export({ format: 'jwk' }),
    privateWrapped: wrap(wrapKey, kid, JSON.stringify(privateKey.export({ format: 'jwk' }))),
    createdAt: now,
  };
}

/** The kid is bound as associated data, so a wrapped key cannot be moved under another kid. */
function wrap(key: Buffer, kid: string, plaintext: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(kid, 'utf8'));
  const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
  return [iv, c.getAuthTag(), ct].map((b) => b.toString('base64url')).join('.');
}

export function unwrapPrivateJwk(key: Buffer, stored: StoredSigningKey): JsonWebKey {
  const [iv, tag, ct] = stored.privateWrapped.split('.').map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !tag || !ct) throw new Error('malformed wrapped key');
  const d = createDecipheriv('aes-256-gcm', key, iv);
  d.setAAD(Buffer.from(stored.kid, 'utf8'));
  d.setAuthTag(tag);
  return JSON.parse(Buffer.concat([d.update(ct), d.final()]).toString('utf8')) as JsonWebKey;
}
