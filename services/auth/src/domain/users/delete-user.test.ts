import type { AuditSource, ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { deleteUser } from './delete-user';

const projectId = 'a'.repeat(24) as ProjectId;
const source = { requestId: 'r1' } as AuditSource;

function deps() {
  const deleted: string[] = [];
  const revoked: string[] = [];
  const d = {
    clock: () => new Date('2026-12-07T12:00:00Z'),
    users: {
      delete: async (_: ProjectId, userId: string) => {
        deleted.push(userId);
        return userId === 'b'.repeat(24);
      },
    },
    sessions: { revokeUserFamilies: async (_: ProjectId, userId: string) => void revoked.push(userId) },
  } as unknown as AuthDeps;
  return { d, deleted, revoked };
}

describe('deleteUser', () => {
  it('deletes a user by id and ends its sessions', async () => {
    const { d, deleted, revoked } = deps();
    await deleteUser(d, projectId, 'b'.repeat(24), source);
    expect(deleted).toEqual(['b'.repeat(24)]);
    expect(revoked).toEqual(['b'.repeat(24)]);
  });

  it('answers USER_NOT_FOUND for an id no user has', async () => {
    const { d, revoked } = deps();
    await expect(deleteUser(d, projectId, 'c'.repeat(24), source)).rejects.toMatchObject({
      status: 404,
      code: 'USER_NOT_FOUND',
    });
    expect(revoked).toEqual([]);
  });

  it.each(['x', 'B'.repeat(24), 'b'.repeat(25), 'a\u0000b', ''])(
    'answers USER_NOT_FOUND for %j without asking the store',
    async (id) => {
      const { d, deleted } = deps();
      await expect(deleteUser(d, projectId, id, source)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
      expect(deleted).toEqual([]);
    },
  );
});
