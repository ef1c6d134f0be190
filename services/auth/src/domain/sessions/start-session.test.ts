import { generateKeyPairSync } from 'node:crypto';
import type { ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import type { AuditEntry } from '../audit/audit-entry';
import type { User } from '../users/user';
import type { KeyStore } from '../keys/key-store';
import { startSession } from './start-session';

const projectId = 'a'.repeat(24) as ProjectId;
const user = { id: 'u1', emailVerified: true } as User;
const signedIn = { action: 'user.logged_in' } as AuditEntry;

function deps(keys: Pick<KeyStore, 'signingKey'>) {
  const stored: unknown[][] = [];
  const d = {
    clock: () => new Date('2026-12-07T12:00:00Z'),
    ids: { familyId: () => 'family-1', userId: () => 'u1' },
    policy: { refreshFamilyMaxSeconds: 3600, refreshTokenTtlSeconds: 600, accessTokenTtlSeconds: 300 },
    keys,
    sessions: {
      startFamily: async (...args: unknown[]) => void stored.push(args),
    },
  } as unknown as AuthDeps;
  return { d, stored };
}

describe('startSession', () => {
  it('stores the session with its sign-in entry and answers its tokens', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const { d, stored } = deps({ signingKey: () => ({ kid: 'k1', key: privateKey }) });
    const tokens = await startSession(d, projectId, user, signedIn);
    expect(tokens.accessToken.split('.')).toHaveLength(3);
    expect(tokens.expiresIn).toBe(300);
    expect(stored).toHaveLength(1);
    expect(stored[0]?.[2]).toBe(signedIn);
  });

  it('stores no session and no "signed in" entry when the access token cannot be signed', async () => {
    const { d, stored } = deps({
      signingKey: () => {
        throw new Error('no signing key');
      },
    });
    await expect(startSession(d, projectId, user, signedIn)).rejects.toThrow('no signing key');
    expect(stored).toEqual([]);
  });
});
