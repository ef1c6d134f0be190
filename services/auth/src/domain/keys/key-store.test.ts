import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { SIGNING_KEY_PUBLISH_AHEAD_MS } from '@baas/common';
import type { SigningKeyRepository } from '../../ports';
import { KeyStore } from './key-store';
import type { StoredSigningKey } from './signing-key';

/** The port's contract in memory (the adapters' own tests run on PostgreSQL and MongoDB). */
class MemoryKeys implements SigningKeyRepository {
  keys: StoredSigningKey[] = [];
  async list() {
    return this.keys.map((k) => ({ ...k }));
  }
  async insert(key: StoredSigningKey) {
    this.keys.push({ ...key });
  }
  async markRetiring(exceptKid: string, at: Date) {
    for (const k of this.keys)
      if (k.status === 'active' && k.kid !== exceptKid)
        Object.assign(k, { status: 'retiring', retiringAt: at });
  }
  async retireRetiringBefore(cutoff: Date, at: Date) {
    const stale = this.keys.filter((k) => k.status === 'retiring' && k.retiringAt! < cutoff);
    for (const k of stale) Object.assign(k, { status: 'retired', retiredAt: at });
    return stale.length;
  }
}

const START = Date.parse('2026-11-01T00:00:00Z');

function setup() {
  let now = START;
  const repo = new MemoryKeys();
  const store = new KeyStore(repo, randomBytes(32), pino({ level: 'silent' }), () => new Date(now));
  return { repo, store, advance: (ms: number) => (now += ms) };
}

describe('KeyStore', () => {
  it('signs with the first key at once (no verifier can have cached a JWKS before it)', async () => {
    const { repo, store } = setup();
    await store.init();
    expect(repo.keys).toHaveLength(1);
    expect(store.signingKey().kid).toBe(repo.keys[0]!.kid);
  });

  it('publishes a rotated key at once and signs with it only SIGNING_KEY_PUBLISH_AHEAD_MS later', async () => {
    const { store, advance } = setup();
    await store.init();
    advance(60_000);
    const old = store.signingKey().kid;
    const { kid, signsFrom } = await store.rotate();
    expect(store.jwks().keys.map((k) => k.kid)).toEqual(expect.arrayContaining([old, kid]));
    expect(signsFrom.getTime() - START).toBe(60_000 + SIGNING_KEY_PUBLISH_AHEAD_MS);

    expect(store.signingKey().kid).toBe(old);
    advance(SIGNING_KEY_PUBLISH_AHEAD_MS - 1);
    expect(store.signingKey().kid).toBe(old); // 1 ms before signsFrom
    advance(1);
    expect(store.signingKey().kid).toBe(kid); // at signsFrom
  });

  it('goes through rotations made within the window in order, every key published', async () => {
    const { store, advance } = setup();
    await store.init();
    advance(60_000);
    const first = store.signingKey().kid;
    const second = (await store.rotate()).kid;
    advance(SIGNING_KEY_PUBLISH_AHEAD_MS / 2);
    const third = (await store.rotate()).kid;
    expect(store.jwks().keys).toHaveLength(3);
    expect(store.signingKey().kid).toBe(first);
    advance(SIGNING_KEY_PUBLISH_AHEAD_MS / 2);
    expect(store.signingKey().kid).toBe(second); // retiring already, still the newest ripe one
    advance(SIGNING_KEY_PUBLISH_AHEAD_MS / 2);
    expect(store.signingKey().kid).toBe(third);
  });

  it('keeps signing with the first key when a rotation follows the first boot at once', async () => {
    const { store, advance } = setup();
    await store.init();
    const first = store.signingKey().kid;
    advance(1);
    const { kid } = await store.rotate();
    expect(store.signingKey().kid).toBe(first); // neither is ripe: the one published first
    advance(SIGNING_KEY_PUBLISH_AHEAD_MS);
    expect(store.signingKey().kid).toBe(kid);
  });

  it('never signs with a key it cannot unwrap', async () => {
    const { repo, store, advance } = setup();
    await store.init();
    const own = store.signingKey().kid;
    // A key another secret wrapped (AUTH_SECRET changed elsewhere): published, never used.
    const foreign = new KeyStore(repo, randomBytes(32), pino({ level: 'silent' }), () => new Date(0));
    const { kid: foreignKid } = await foreign.rotate();
    advance(SIGNING_KEY_PUBLISH_AHEAD_MS);
    await store.reload();
    expect(store.jwks().keys.map((k) => k.kid)).toContain(foreignKid);
    expect(store.signingKey().kid).toBe(own);
  });
});
