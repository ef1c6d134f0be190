import { client, createProject } from '../support/e2e';
import { bytesOf, uploadBytes } from './storage-helpers';

describe('storage: per-project quota', () => {
  it('accepts uploads up to the quota exactly and refuses the next byte with 403', async () => {
    const p = await createProject({ limits: { storageBytes: 5000 } });
    const call = client();
    expect((await uploadBytes(call, p.secretKey, bytesOf(3000))).status).toBe(201);
    expect((await uploadBytes(call, p.secretKey, bytesOf(2000))).status).toBe(201);
    const over = await uploadBytes(call, p.secretKey, bytesOf(1));
    expect(over.status).toBe(403);
    expect(over.body).toMatchObject({ success: false, code: 'QUOTA_EXCEEDED' });
    // An empty file still fits a full quota.
    expect((await uploadBytes(call, p.publishableKey, new Uint8Array(0))).status).toBe(201);
  });

  it('refuses a single file larger than the whole quota with 403', async () => {
    const p = await createProject({ limits: { storageBytes: 1000 } });
    const r = await uploadBytes(client(), p.secretKey, bytesOf(1001));
    expect(r).toMatchObject({ status: 403, body: { code: 'QUOTA_EXCEEDED' } });
    expect((await uploadBytes(client(), p.secretKey, bytesOf(1000))).status).toBe(201);
  });

  it('gives the quota back when a file is deleted', async () => {
    const p = await createProject({ limits: { storageBytes: 1000 } });
    const call = client();
    const a = await uploadBytes(call, p.secretKey, bytesOf(1000));
    expect((await uploadBytes(call, p.secretKey, bytesOf(1))).status).toBe(403);
    expect(
      (await call('DELETE', '/api/storage/file', { key: p.secretKey, body: { path: a.body.path } })).status,
    ).toBe(200);
    expect((await uploadBytes(call, p.secretKey, bytesOf(1000))).status).toBe(201);
  });

  it('never overshoots the quota with 50 parallel uploads', async () => {
    const quota = 10_000;
    const size = 1000;
    const p = await createProject({ limits: { storageBytes: quota } });
    const call = client();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => uploadBytes(call, p.secretKey, bytesOf(size))),
    );
    const accepted = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 403);
    expect(accepted.length + refused.length).toBe(50);
    expect(refused.every((r) => r.body.code === 'QUOTA_EXCEEDED')).toBe(true);
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.length * size).toBeLessThanOrEqual(quota);
    // Usage equals what was accepted: the rest of the quota is usable, and not one byte more.
    const left = quota - accepted.length * size;
    const check = client();
    if (left > 0) expect((await uploadBytes(check, p.secretKey, bytesOf(left))).status).toBe(201);
    expect((await uploadBytes(check, p.secretKey, bytesOf(1))).status).toBe(403);
  });
});
