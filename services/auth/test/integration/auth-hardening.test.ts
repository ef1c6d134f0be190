import argon2 from 'argon2';
import {
  answerJanitor,
  connectNats,
  createEvent,
  createLogger,
  idempotent,
  JANITOR_SUBJECTS,
  JetStreamBus,
  type JanitorReply,
} from '@baas/common';
import { deleteProjectUsers } from '../../src/domain/maintenance/delete-project-users';
import { eventually } from './harness';
import { infra, requireInfra, storeNeed } from '../../../../test/support/infra';
import { purgeExpired } from '../../src/domain/maintenance/purge-expired';
import { startHarness, type Harness } from './harness';

describe('password hashing', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE_MAX: '2' });
  });
  afterAll(async () => {
    await h.close();
  });

  it('caps concurrent hashes: a burst past the queue gets 503 SERVICE_UNAVAILABLE with Retry-After, nothing crashes', async () => {
    const p = await h.project();
    const burst = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        h.call('POST', '/api/userAuth/login', {
          projectId: p,
          body: { email: `nobody${i}@x.io`, password: 'password-1' },
        }),
      ),
    );
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);
    const busy = burst.find((r) => r.status === 503)!;
    expect(busy.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(busy.headers.get('retry-after')).toBe('1');
    // Once the burst is over, requests are served again.
    expect(
      (
        await h.call('POST', '/api/userAuth/login', {
          projectId: p,
          body: { email: 'nobody@x.io', password: 'password-1' },
        })
      ).status,
    ).toBe(401);
  });

  it('upgrades a hash made with weaker parameters at the next successful login', async () => {
    const p = await h.project();
    await h.call('POST', '/api/userAuth/signup', {
      projectId: p,
      body: { email: 'old@x.io', password: 'password-1' },
    });
    const weak = await argon2.hash('password-1', {
      type: argon2.argon2id,
      memoryCost: 8192,
      timeCost: 1,
      parallelism: 1,
    });
    await h.probe.setPasswordHash(p, weak);
    const r = await h.call('POST', '/api/userAuth/login', {
      projectId: p,
      body: { email: 'old@x.io', password: 'password-1' },
    });
    expect(r.status).toBe(200);
    const stored = await h.probe.firstUser(p);
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
  });
});

describe('project settings', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('requireEmailVerification: signup gives no session and login is 403 until the email is verified', async () => {
    const p = await h.project({ requireEmailVerification: true });
    const s = await h.call('POST', '/api/userAuth/signup', {
      projectId: p,
      body: { email: 'v@x.io', password: 'password-1' },
    });
    expect(s.status).toBe(201);
    expect(s.body.accessToken).toBeUndefined();
    expect(s.body.emailVerificationRequired).toBe(true);
    const l = await h.call('POST', '/api/userAuth/login', {
      projectId: p,
      body: { email: 'v@x.io', password: 'password-1' },
    });
    expect(l.status).toBe(403);
    expect(l.body.code).toBe('EMAIL_NOT_VERIFIED');
    // Wrong password stays the plain 401: the setting reveals nothing about the account.
    expect(
      (
        await h.call('POST', '/api/userAuth/login', {
          projectId: p,
          body: { email: 'v@x.io', password: 'password-2' },
        })
      ).status,
    ).toBe(401);
    await h.relay.flush();
    const e = h.published.find((x) => x.type === 'auth.verification_requested' && x.projectId === p)!;
    expect(
      (
        await h.call('POST', '/api/userAuth/verify-email', {
          projectId: p,
          body: { token: h.codes(e).token },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await h.call('POST', '/api/userAuth/login', {
          projectId: p,
          body: { email: 'v@x.io', password: 'password-1' },
        })
      ).status,
    ).toBe(200);
  });
});

describe('janitor command over NATS', () => {
  let h: Harness;
  beforeAll(async () => {
    await requireInfra(storeNeed(), 'nats');
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers purge-expired on its subject with a JanitorReply', async () => {
    const logger = createLogger('auth-it', 'silent');
    const nc = await connectNats(infra.natsUrl, 'auth-it', logger);
    // A private subject, so the running stack's auth service (same queue group) does not answer.
    const subject = `${JANITOR_SUBJECTS.purgeExpiredSessions}.it-${Date.now()}`;
    const sub = answerJanitor(nc, subject, logger, (cmd) =>
      purgeExpired({ ...h.wiring, clock: () => new Date() }, cmd),
    );
    try {
      const reply = await nc.request(
        subject,
        JSON.stringify({ olderThan: new Date().toISOString(), batchSize: 100 }),
        { timeout: 5000 },
      );
      expect(reply.json<JanitorReply>()).toMatchObject({
        ok: true,
        processed: expect.any(Number),
        more: false,
      });
      const bad = await nc.request(subject, JSON.stringify({ nope: 1 }), { timeout: 5000 });
      expect(bad.json<JanitorReply>()).toMatchObject({ ok: false, processed: 0 });
    } finally {
      await sub.close();
      await nc.drain();
    }
  });
});

describe('project.deleted consumer over JetStream', () => {
  it('removes the deleted project’s users and sessions; other projects keep theirs', async () => {
    await requireInfra(storeNeed(), 'nats');
    const h = await startHarness();
    const logger = createLogger('auth-it', 'silent');
    const nc = await connectNats(infra.natsUrl, 'auth-it', logger);
    const bus = await JetStreamBus.create(nc, logger);
    // A private durable: the running stack's consumer must not be disturbed.
    const durable = `auth-project-deleted-it-${Date.now()}`;
    const p = await h.project();
    const keep = await h.project();
    const s = await h.call('POST', '/api/userAuth/signup', {
      projectId: p,
      headers: { 'x-refresh-token-mode': 'header' },
      body: { email: 'gone@x.io', password: 'password-1' },
    });
    await h.call('POST', '/api/userAuth/signup', {
      projectId: keep,
      body: { email: 'stay@x.io', password: 'password-1' },
    });
    const handle = await bus.consume({
      durable,
      types: ['project.deleted'],
      handler: idempotent(h.wiring.processed, durable, (e) => deleteProjectUsers(h.wiring, e.projectId)),
    });
    try {
      const event = createEvent('project.deleted', p, {}, { requestId: 'it' });
      await bus.publish(event);
      await eventually(async () => expect(await h.probe.count('users', p)).toBe(0), 8000);
      expect(await h.probe.count('refreshTokens', p)).toBe(0);
      expect(await h.probe.count('users', keep)).toBe(1);
      const r = await h.call('POST', '/api/userAuth/refresh-token', {
        projectId: p,
        headers: { 'x-refresh-token': s.body.refreshToken },
      });
      expect(r.status).toBe(401);
    } finally {
      await handle.stop();
      await bus.jsm.consumers.delete('BAAS_EVENTS', durable).catch(() => undefined);
      await nc.drain();
      await h.close();
    }
  });
});
