import type { ProjectId } from '@baas/common';
import { startHarness, type Harness } from './harness';

/**
 * A project's first users schema saved by several requests at once: each is a 200 and one schema
 * is kept. On MongoDB the schema is an upsert by the project's id, and the upserts that lost the
 * race to insert it got a duplicate key, answered 500 (found by
 * test/e2e/concurrent-duplicates-sweep.test.ts on FerretDB). Runs on TEST_STORE.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const admin = { admin: true } as const;

it('takes racing first saves of a users schema: every one a 200, one schema kept', async () => {
  for (let round = 0; round < 5; round++) {
    const made = await h.call('POST', '/api/admin/projects', { ...admin, body: { name: 'schema-race' } });
    const p = made.body.id as ProjectId;
    const path = `/api/admin/projects/${p}/users-schema`;
    const body = { fields: [{ key: 'nickname', type: 'String' }] };
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => h.call('PUT', path, { ...admin, projectId: p, body })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 8 }, () => 200));
    const kept = await h.call('GET', path, { ...admin, projectId: p });
    expect(kept.body.data.fields).toEqual([expect.objectContaining({ key: 'nickname', type: 'String' })]);
  }
});
