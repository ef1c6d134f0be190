import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { JWTHeaderParameters } from 'jose';
import { JWKS_REFETCH_COOLDOWN_MS, SIGNING_KEY_PUBLISH_AHEAD_MS, type Logger } from '@baas/common';
import type { SigningKeyRepository } from '../../ports';
import { generateSigningKey, unwrapPrivateJwk, type StoredSigningKey } from './signing-key';

interface PublishedKey {
  kid: string;
  key: KeyObject;
  jwk: Record<string, unknown>;
}

interface SigningCandidate {
  kid: string;
  key: KeyObject;
  createdAt: Date;
}

/**
 * The signing keys as this process sees them: every key not retired is published in the JWKS and
 * accepted when verifying; the newest one this process can unwrap signs once it has been
 * published for SIGNING_KEY_PUBLISH_AHEAD_MS (until then the one before it keeps signing, so no
 * verifier meets a kid it cannot fetch yet). Reloaded periodically so a rotation done elsewhere
 * is picked up without a restart.
 */
export class KeyStore {
  /** Keys this process can sign with, newest first. */
  private candidates: SigningCandidate[] = [];
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
    if (this.candidates.length === 0) {
      await this.repo.insert(generateSigningKey(this.wrapKey, this.clock()));
      await this.reload();
    }
    if (this.candidates.length === 0) throw new Error('no usable signing key after creating one');
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
    const candidates: SigningCandidate[] = [];
    for (const k of keys) {
      if (k.status === 'retired') continue;
      const jwk = { ...k.publicJwk, kid: k.kid, alg: 'EdDSA', use: 'sig' } as Record<string, unknown>;
      published.set(k.kid, { kid: k.kid, jwk, key: createPublicKey({ key: k.publicJwk, format: 'jwk' }) });
      const key = this.privateKey(k);
      if (key) candidates.push({ kid: k.kid, key, createdAt: k.createdAt });
    }
    this.published = published;
    // Should every key become unusable (all retired, or AUTH_SECRET changed), keep signing with
    // what signed before rather than fail every sign-in.
    if (candidates.length > 0)
      this.candidates = candidates.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
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

  /**
   * The newest key published at least SIGNING_KEY_PUBLISH_AHEAD_MS ago; when none is that old
   * (the first key, at first boot, when no verifier has a JWKS to be stale), the oldest.
   */
  signingKey(): { kid: string; key: KeyObject } {
    const ripeBefore = this.clock().getTime() - SIGNING_KEY_PUBLISH_AHEAD_MS;
    const signer = this.candidates.find((c) => c.createdAt.getTime() <= ripeBefore) ?? this.candidates.at(-1);
    if (!signer) throw new Error('KeyStore not initialised');
    return { kid: signer.kid, key: signer.key };
  }

  jwks(): { keys: Array<Record<string, unknown>> } {
    return { keys: [...this.published.values()].map((k) => k.jwk) };
  }

  /** For jose's jwtVerify: only keys of our own set, chosen by kid (never jku/jwk/x5u). */
  readonly verificationKey = async (header: JWTHeaderParameters): Promise<KeyObject> => {
    const kid = header.kid;
    if (typeof kid !== 'string') throw new Error('token without kid');
    let found = this.published.get(kid);
    if (!found && Date.now() - this.lastLoad > JWKS_REFETCH_COOLDOWN_MS) {
      await this.reload();
      found = this.published.get(kid);
    }
    if (!found) throw new Error('unknown kid');
    return found.key;
  };

  /**
   * Publishes a new key, which signs from `signsFrom` on (SIGNING_KEY_PUBLISH_AHEAD_MS later). The
   * previous keys keep being published (retiring) so tokens they signed stay valid until they
   * expire; nobody is logged out.
   */
  async rotate(): Promise<{ kid: string; signsFrom: Date }> {
    const now = this.clock();
    const fresh = generateSigningKey(this.wrapKey, now);
    await this.repo.insert(fresh);
    await this.repo.markRetiring(fresh.kid, now);
    await this.reload();
    return { kid: fresh.kid, signsFrom: new Date(now.getTime() + SIGNING_KEY_PUBLISH_AHEAD_MS) };
  }

  /**
   * Stops publishing keys that have not signed anything for longer than a token lives. The 120 s
   * past the lifetime cover a retiring key still signing: here until the new one is ripe
   * (SIGNING_KEY_PUBLISH_AHEAD_MS), on another replica until its next reload (a minute).
   */
  async retireStale(accessTokenTtlSeconds: number): Promise<number> {
    const cutoff = new Date(this.clock().getTime() - (accessTokenTtlSeconds + 120) * 1000);
    const n = await this.repo.retireRetiringBefore(cutoff, this.clock());
    if (n > 0) await this.reload();
    return n;
  }
}
