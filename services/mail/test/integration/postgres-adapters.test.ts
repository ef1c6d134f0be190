import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEvent, createLogger, type EventEnvelope, type ProjectId } from '@baas/common';
import { connectPostgres, type Pool } from '@baas/common/postgres';
import { infra, requireInfra } from '../../../../test/support/infra';
import { freshPostgresDatabase, TEST_POOL_MAX, type TestDatabase } from '../../../../test/support/postgres';
import { createApp } from '../../src/app';
import { SmtpMailer } from '../../src/adapters/smtp-mailer';
import { newHexId } from '../../src/adapters/hex-ids';
import { PostgresMessageRepository } from '../../src/adapters/postgres-message-repository';
import { PostgresTemplateRepository } from '../../src/adapters/postgres-template-repository';
import { PostgresUsageCounter } from '../../src/adapters/postgres-usage-counter';
import { MIGRATIONS_DIR, wireMail, type MailWiring } from '../../src/wiring';
import { ASSERTION_KEYS, ENVELOPE_KEY, FROM, newProjectId, sendAs } from '../support/harness';
import { uniqueAddress } from '../support/mailpit';

// PostgreSQL-only guarantees, whatever TEST_STORE says: they are properties of the SQL adapters
// (conditional upserts, one transaction per change and its event), proven with two pools
// standing for two replicas of the service.
describe('mail on PostgreSQL', () => {
  const logger = createLogger('mail-pg', 'silent');
  let db: TestDatabase;
  let second: Pool;

  beforeAll(async () => {
    await requireInfra('postgres', 'smtp');
    db = await freshPostgresDatabase('mail_pg', MIGRATIONS_DIR);
    second = await connectPostgres(db.url, 'mail-replica-2', logger, { max: TEST_POOL_MAX });
  });
  afterAll(async () => {
    await second?.end();
    await db?.drop();
  });

  async function outboxOf(projectId: ProjectId): Promise<EventEnvelope[]> {
    const { rows } = await db.pool.query<{ event: EventEnvelope }>(
      "SELECT event FROM outbox WHERE event->>'projectId' = $1 ORDER BY seq",
      [projectId],
    );
    return rows.map((r) => r.event);
  }

  describe('usage counted by two replicas', () => {
    it('takes exactly the limit under parallel claims, each slot once', async () => {
      const p = newProjectId();
      const counters = [new PostgresUsageCounter(db.pool), new PostgresUsageCounter(second)];
      const slots = await Promise.all(
        Array.from({ length: 40 }, (_, i) => counters[i % 2]!.tryIncrement(p, 'month:2030-01', 15)),
      );
      const taken = slots.filter((s) => s !== null);
      expect(taken).toHaveLength(15);
      expect(taken.map((s) => s.slot).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 15 }, (_, i) => i + 1),
      );
      expect(await counters[1]!.current(p, 'month:2030-01')).toBe(15);
      await counters[0]!.release(p, 'month:2030-01', 15);
      expect(await counters[1]!.tryIncrement(p, 'month:2030-01', 15)).toEqual({ slot: 15, count: 15 });
      expect(await counters[0]!.tryIncrement(p, 'month:2030-01', 15)).toBeNull();
    });

    it('sends exactly the monthly limit when two service instances answer at once', async () => {
      const p = newProjectId();
      const instances = await Promise.all([db.pool, second].map((pool) => startInstance(pool)));
      try {
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            sendAs(
              instances[i % 2]!.harness,
              p,
              { to: uniqueAddress('pgrace'), subject: `r${i}`, text: 'x' },
              5,
            ),
          ),
        );
        expect(results.filter((r) => r.status === 200)).toHaveLength(5);
        expect(results.filter((r) => r.status === 429)).toHaveLength(7);
        expect(
          results
            .filter((r) => r.status === 200)
            .map((r) => r.body.data.monthlyUsage as number)
            .sort(),
        ).toEqual([1, 2, 3, 4, 5]);
        const month = `month:${new Date().toISOString().slice(0, 7)}`;
        expect(await new PostgresUsageCounter(db.pool).current(p, month)).toBe(5);
        const { rows } = await db.pool.query('SELECT status FROM messages WHERE project_id = $1', [p]);
        expect(rows).toEqual(Array.from({ length: 5 }, () => ({ status: 'sent' })));
        for (const i of instances) await i.wiring.relay.flush();
        const sent = [...instances[0]!.published, ...instances[1]!.published].filter(
          (e) => e.type === 'mail.sent' && e.projectId === p,
        );
        expect(sent).toHaveLength(5);
      } finally {
        for (const i of instances) await i.close();
      }
    });
  });

  describe('outbox rows exist if and only if their change committed', () => {
    async function sending(projectId: ProjectId, messages: PostgresMessageRepository) {
      const id = newHexId();
      await messages.create(projectId, {
        id,
        to: 'a@example.com',
        system: false,
        provider: 'smtp',
        status: 'sending',
        createdAt: new Date(),
      });
      return id;
    }
    const sentEvent = (projectId: ProjectId, messageId: string, templateKey?: string) =>
      createEvent('mail.sent', projectId, {
        messageId,
        system: false,
        ...(templateKey !== undefined ? { templateKey } : {}),
      });
    const statusOf = async (id: string) =>
      (await db.pool.query<{ status: string }>('SELECT status FROM messages WHERE id = $1', [id])).rows[0]
        ?.status;

    it('writes mail.sent with the final status, and nothing for a message that is not there', async () => {
      const p = newProjectId();
      const messages = new PostgresMessageRepository(db.pool);
      const id = await sending(p, messages);
      const event = sentEvent(p, id);
      await messages.markSent(p, id, 1, [event]);
      expect(await statusOf(id)).toBe('sent');
      expect((await outboxOf(p)).map((e) => e.id)).toEqual([event.id]);

      const gone = newProjectId();
      await messages.markFailed(gone, newHexId(), 3, 'x', [
        createEvent('mail.failed', gone, { messageId: 'none', reason: 'x', permanent: true }),
      ]);
      expect(await outboxOf(gone)).toEqual([]);
    });

    it('rolls the status back when its event cannot be written, leaving no row', async () => {
      const p = newProjectId();
      const messages = new PostgresMessageRepository(db.pool);
      const id = await sending(p, messages);
      // jsonb refuses U+0000, so the outbox insert fails after the UPDATE succeeded.
      await expect(messages.markSent(p, id, 1, [sentEvent(p, id, 'bad\u0000key')])).rejects.toMatchObject({
        code: '22P05',
      });
      expect(await statusOf(id)).toBe('sending');
      expect(await outboxOf(p)).toEqual([]);
    });
  });

  describe('tenancy', () => {
    it("neither sees nor deletes another project's template, by id, key or name", async () => {
      const a = newProjectId();
      const b = newProjectId();
      const templates = new PostgresTemplateRepository(db.pool);
      const content = { name: 'Private name', subject: 's', text: 't' };
      const { template: ofB } = await templates.save({ scope: 'project', projectId: b }, 'private', content);
      const ownerA = { scope: 'project', projectId: a } as const;

      expect(await templates.findVisibleById(a, ofB.id)).toBeNull();
      expect(await templates.findByKey(ownerA, 'private')).toBeNull();
      expect(await templates.findByKeyOrName(ownerA, 'Private name')).toBeNull();
      expect(await templates.findByKeyOrName({ scope: 'global' }, 'Private name')).toBeNull();
      expect(await templates.list(ownerA)).toEqual([]);
      expect(await templates.delete(ownerA, 'private')).toBeNull();
      expect(await templates.delete({ scope: 'global' }, 'private')).toBeNull();
      expect(await templates.deleteAllOfProject(a)).toBe(0);

      expect(await templates.findVisibleById(b, ofB.id)).toMatchObject({ id: ofB.id, key: 'private' });
      const key = `g-${newHexId()}`;
      const { template: global } = await templates.save({ scope: 'global' }, key, content);
      expect(await templates.findVisibleById(a, global.id)).toMatchObject({ owner: { scope: 'global' } });
      await templates.delete({ scope: 'global' }, key);
    });

    it("neither reads another project's message nor touches its usage", async () => {
      const a = newProjectId();
      const b = newProjectId();
      const messages = new PostgresMessageRepository(db.pool);
      const usage = new PostgresUsageCounter(db.pool);
      const id = newHexId();
      await messages.create(b, {
        id,
        to: 'b@example.com',
        system: false,
        provider: 'smtp',
        status: 'sending',
        createdAt: new Date(),
      });
      await usage.tryIncrement(b, 'month:2030-02', 10);
      expect(await messages.findById(a, id)).toBeNull();
      await messages.deleteAllOfProject(a);
      await usage.release(a, 'month:2030-02', 1);
      await usage.deleteAllOfProject(a);
      expect(await messages.findById(b, id)).toMatchObject({ id, status: 'sending' });
      expect(await usage.current(b, 'month:2030-02')).toBe(1);
    });

    it('keeps one template per owner and key when saves race: one creates, the others replace', async () => {
      const p = newProjectId();
      const replicas = [new PostgresTemplateRepository(db.pool), new PostgresTemplateRepository(second)];
      const saved = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          replicas[i % 2]!.save({ scope: 'project', projectId: p }, 'race', {
            name: 'race',
            subject: `s${i}`,
          }),
        ),
      );
      expect(saved.filter((s) => s.created)).toHaveLength(1);
      expect(new Set(saved.map((s) => s.template.id)).size).toBe(1);
    });
  });

  /** A second copy of the service on its own pool, wired exactly as main.ts wires it. */
  async function startInstance(pool: Pool) {
    const published: EventEnvelope[] = [];
    const mailer = new SmtpMailer({
      host: infra.smtpHost,
      port: infra.smtpPort,
      secure: false,
      maxConnections: 2,
      from: FROM,
    });
    const wiring: MailWiring = await wireMail({
      store: { kind: 'postgres', pool, url: db.url },
      publisher: { publish: async (e) => void published.push(e) },
      logger,
      mailer,
      limits: { defaultMonthly: 1000, systemDaily: 500, systemRecipientHourly: 10 },
      retry: { attempts: 3, baseDelayMs: 10 },
      envelopeKeys: [ENVELOPE_KEY],
      consoleUrl: 'http://localhost:8080/console/',
      relayIntervalMs: 200,
    });
    const svc = createApp({
      logger,
      assertionPublicKey: ASSERTION_KEYS.publicKey,
      readiness: [],
      mail: wiring.deps,
    });
    const server = http.createServer(svc.app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      wiring,
      published,
      harness: { baseUrl },
      close: async () => {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
        for (const c of wiring.closers) await c.close();
        mailer.close();
      },
    };
  }
});
