import { client, createProject } from '../support/e2e';
import { bytesOf, fetchPublic, uploadBytes } from './storage-helpers';

const del = (call: ReturnType<typeof client>, key: string, path: unknown) =>
  call('DELETE', '/api/storage/file', { key, body: { path } });

describe('storage: delete', () => {
  it.each(['secretKey', 'publishableKey'] as const)(
    'deletes a file permanently with the %s',
    async (which) => {
      const p = await createProject();
      const call = client();
      const up = await uploadBytes(call, p.secretKey, bytesOf(100));
      const r = await del(call, p[which], up.body.path);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ success: true, data: {}, message: expect.any(String) });
      expect((await fetchPublic(up.body.url)).status).toBe(404);
    },
  );

  it('answers 404 when the file was already deleted or never existed', async () => {
    const p = await createProject();
    const call = client();
    const up = await uploadBytes(call, p.secretKey, bytesOf(100));
    expect((await del(call, p.secretKey, up.body.path)).status).toBe(200);
    const again = await del(call, p.secretKey, up.body.path);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ success: false, code: 'FILE_NOT_FOUND' });
    expect((await del(call, p.secretKey, `${p.id}/AAAAAAAAAAAAAAAAAAAAAA.png`)).status).toBe(404);
  });

  it("answers 404 for another project's path and that file survives", async () => {
    const owner = await createProject();
    const other = await createProject();
    const call = client();
    const up = await uploadBytes(call, owner.secretKey, bytesOf(100));
    const r = await del(call, other.secretKey, up.body.path);
    expect(r.status).toBe(404);
    expect(JSON.stringify(r.body)).not.toContain(owner.id);
    const got = await fetchPublic(up.body.url);
    expect(got.status).toBe(200);
    await got.arrayBuffer();
    expect((await del(call, owner.secretKey, up.body.path)).status).toBe(200);
  });

  it('refuses traversal strings with 400 and the targeted file survives', async () => {
    const victim = await createProject();
    const attacker = await createProject();
    const call = client();
    const up = await uploadBytes(call, victim.secretKey, bytesOf(100));
    const name = up.body.path.split('/')[1];
    const attempts = [
      `${attacker.id}/../${victim.id}/${name}`,
      `${attacker.id}/..%2f${victim.id}%2f${name}`,
      `${attacker.id}/%2e%2e/${victim.id}/${name}`,
      `${attacker.id}/..\\${victim.id}\\${name}`,
      `${attacker.id}\\..\\${victim.id}\\${name}`,
      `${attacker.id}/${name}\u0000`,
      `/${victim.id}/${name}`,
      `${attacker.id}//${name}`,
      '../../etc/passwd',
    ];
    for (const path of attempts) {
      const r = await del(call, attacker.secretKey, path);
      expect([r.status, path]).toEqual([400, path]);
      expect(r.body).toMatchObject({ success: false, code: 'INVALID_PATH' });
    }
    const got = await fetchPublic(up.body.url);
    expect(got.status).toBe(200);
    await got.arrayBuffer();
  });

  it('answers 400 for a missing or non-string path and for the URL instead of the path', async () => {
    const p = await createProject();
    const call = client();
    const up = await uploadBytes(call, p.secretKey, bytesOf(10));
    expect((await call('DELETE', '/api/storage/file', { key: p.secretKey, body: {} })).status).toBe(400);
    expect((await del(call, p.secretKey, 42)).status).toBe(400);
    expect((await del(call, p.secretKey, up.body.url)).status).toBe(400);
    expect((await fetchPublic(up.body.url)).status).toBe(200);
  });

  it("removes the project's files when the project is deleted", async () => {
    const p = await createProject();
    const call = client();
    const up = await uploadBytes(call, p.secretKey, bytesOf(100));
    expect((await call('DELETE', `/api/admin/projects/${p.id}`, { admin: true })).status).toBe(200);
    let status = 200;
    for (let i = 0; i < 50 && status === 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const got = await fetchPublic(up.body.url);
      status = got.status;
      await got.arrayBuffer();
    }
    expect(status).toBe(404);
  });
});
