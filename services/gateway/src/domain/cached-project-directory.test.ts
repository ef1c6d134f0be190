import { trustedProjectId } from '@baas/common';
import { CachedProjectDirectory } from './cached-project-directory';
import type { ProjectDirectory, ResolvedProject } from '../ports';

const P1 = trustedProjectId('64b7f0c2a1b2c3d4e5f60718');
const resolved: ResolvedProject = {
  projectId: P1,
  keyType: 'secret',
  allowedOrigins: [],
  settings: {
    publicSignups: true,
    requireEmailVerification: false,
    limits: { storageBytes: 1, documents: 1, mailMonthly: 1 },
  },
};

function counting(value: ResolvedProject | null) {
  const inner = { calls: 0 } as { calls: number } & ProjectDirectory;
  inner.byKeyHash = async () => {
    inner.calls++;
    await new Promise((r) => setTimeout(r, 10));
    return value;
  };
  inner.byId = inner.byKeyHash;
  return inner;
}

describe('CachedProjectDirectory', () => {
  it('serves repeated lookups from memory and shares one lookup between concurrent misses', async () => {
    const inner = counting(resolved);
    const dir = new CachedProjectDirectory(inner, 60_000);
    await Promise.all([dir.byKeyHash('h', 'r'), dir.byKeyHash('h', 'r'), dir.byKeyHash('h', 'r')]);
    await dir.byKeyHash('h', 'r');
    expect(inner.calls).toBe(1);
  });

  it('forgets every entry of a project when it is invalidated', async () => {
    const inner = counting(resolved);
    const dir = new CachedProjectDirectory(inner, 60_000);
    await dir.byKeyHash('h', 'r');
    dir.invalidateProject(P1);
    await dir.byKeyHash('h', 'r');
    expect(inner.calls).toBe(2);
  });

  it('does not cache a lookup that was in flight when an invalidation arrived', async () => {
    const inner = counting(resolved);
    const dir = new CachedProjectDirectory(inner, 60_000);
    const p = dir.byKeyHash('h', 'r');
    dir.invalidateProject(P1);
    await p;
    await dir.byKeyHash('h', 'r');
    expect(inner.calls).toBe(2);
  });

  it('caches unknown keys only briefly', async () => {
    const inner = counting(null);
    const dir = new CachedProjectDirectory(inner, 60_000, 20);
    expect(await dir.byKeyHash('x', 'r')).toBeNull();
    await dir.byKeyHash('x', 'r');
    expect(inner.calls).toBe(1);
    await new Promise((r) => setTimeout(r, 40));
    await dir.byKeyHash('x', 'r');
    expect(inner.calls).toBe(2);
  });
});
