import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { JWTHeaderParameters } from 'jose';
import type { Logger } from '@baas/common';
import type { SigningKeyRepository } from '../../ports';
import { generateSigningKey, unwrapPrivateJwk, type StoredSigningKey } from './signing-key';

interface PublishedKey {
  kid: string;
  key: KeyObject;
  jwk: Record<string, unknown>;
}

/** How often an unknown kid may trigger a reload (another replica may have rotated). */
const UNKNOWN_KID_RELOAD_MS = 5_000;

/**
 * The signing keys as this process sees them: the newest usable active key signs, every key not
 * retired is published in the JWKS and accepted when verifying. Reloaded periodically so a
 * rotation done elsewhere is picked up without a restart.
 */
export class KeyStore {
  private signer: { kid: string; key: KeyObject } | undefined;
  private published = new Map<string, PublishedKey>();
  private lastLoad = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly repo: SigningKeyRepository,
    private readonly wrapKey: Buffer,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
    /** During a rotation of AUTH_SECRET: the previous secret's wrap key (unwraps, never wraps). */
    private readonly previousWrapKeys: readonly Buffer[] = [],
  ) {}

  /** Loads the keys and creates the first one when there is none this process can sign with. */
  async init(): Promise<void> {
    await this.reload();
    if (!this.signer) {
      await this.repo.insert(generateSigningKey(this.wrapKey, this.clock()));
      await this.reload();
    }
    if (!this.signer) throw new Error('no usable signing key after creating one');
  }

  startAutoReload(everyMs = 60_000): void {
    this.timer = setInterval(() => {
      this.reload().catch((err: unknown) => this.logger.warn({ err }, 'signing key reload failed'));
    }, everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async reload(): Promise<void> {
    const keys = await this.repo.list();
    const published = new Map<string, PublishedKey>();
    let signer: { kid: string; key: KeyObject; createdAt: Date } | undefined;
    for (const k of keys) {
      if (k.status === 'retired') continue;
      const jwk = { ...k.publicJwk, kid: k.kid, alg: 'EdDSA', use: 'sig' } as Record<string, unknown>;
      published.set(k.kid, { kid: k.kid, jwk, key: createPublicKey({ key: k.publicJwk, format: 'jwk' }) });
      if (k.status === 'active' && (!signer || k.createdAt > signer.createdAt)) {
        const key = this.privateKey(k);
        if (key) signer = { kid: k.kid, key, createdAt: k.createdAt };
      }
    }
    this.published = published;
    if (signer) this.signer = { kid: signer.kid, key: signer.key };
    this.lastLoad = Date.now();
  }

  private privateKey(k: StoredSigningKey): KeyObject | undefined {
    let failure: unknown;
    for (const wrapKey of [this.wrapKey, ...this.previousWrapKeys]) {
      try {
        return createPrivateKey({ key: unwrapPrivateJwk(wrapKey, k), format: 'jwk' });
      } catch (err) {
        failure = err;
      }
    }
    // Wrapped under another secret (AUTH_SECRET changed, the old one not given as
    // AUTH_SECRET_PREVIOUS): publish it, never sign with it.
    this.logger.warn({ kid: k.kid, err: failure }, 'cannot unwrap signing key');
    return undefined;
  }

  signingKey(): { kid: string; key: KeyObject } {
    if (!this.signer) throw new Error('KeyStore not initialised');
    return this.signer;
  }

  jwks(): { keys: Array<Record<string, unknown>> } {
    return { keys: [...this.published.values()].map((k) => k.jwk) };
  }

  /** For jose's jwtVerify: only keys of our own set, chosen by kid (never jku/jwk/x5u). */
  readonly verificationKey = async (header: JWTHeaderParameters): Promise<KeyObject> => {
    const kid = header.kid;
    if (typeof kid !== 'string') throw new Error('token without kid');
    let found = this.published.get(kid);
    if (!found && Date.now() - this.lastLoad > UNKNOWN_KID_RELOAD_MS) {
      await this.reload();
      found = this.published.get(kid);
    }
    if (!found) throw new Error('unknown kid');
    return found.key;
  };

  /**
   * Starts signing with a new key. The previous active keys keep being published (retiring)
   * so tokens they signed stay valid until they expire; nobody is logged out.
   */
  async rotate(): Promise<string> {
    const now = this.clock();
    const fresh = generateSigningKey(this.wrapKey, now);
    await this.repo.insert(fresh);
    await this.repo.markRetiring(fresh.kid, now);
    await this.reload();
    return fresh.kid;
  }

  /** Stops publishing keys that have not signed anything for longer than a token lives. */
  async retireStale(accessTokenTtlSeconds: number): Promise<number> {
    const cutoff = new Date(this.clock().getTime() - (accessTokenTtlSeconds + 120) * 1000);
    const n = await this.repo.retireRetiringBefore(cutoff, this.clock());
    if (n > 0) await this.reload();
    return n;
  }
}
