import { createEvent, createLogger } from '@baas/common';
import { connectPostgres, type Pool } from '@baas/common/postgres';
import { requireInfra } from '../../../../test/support/infra';
import { freshPostgresDatabase, type TestDatabase } from '../../../../test/support/postgres';
import { newHexId } from '../../src/adapters/hex-ids';
import { PostgresMessageRepository } from '../../src/adapters/postgres-message-repository';
import { PostgresTemplateRepository } from '../../src/adapters/postgres-template-repository';
import { PostgresUsageCounter } from '../../src/adapters/postgres-usage-counter';
import { MIGRATIONS_DIR } from '../../src/wiring';
import { newProjectId } from '../support/harness';

/**
 * The statements of a send (template lookup, usage counters, the message record and its final
 * status) and of a status read are prepared: parsed and planned once per connection, not on every
 * mail. One connection, so the session whose prepared statements are listed is the one that ran
 * them. Always on PostgreSQL, whatever TEST_STORE says.
 */
describe('mail statements on PostgreSQL', () => {
  let db: TestDatabase;
  let pool: Pool;
  let templates: PostgresTemplateRepository;
  let usage: PostgresUsageCounter;
  let messages: PostgresMessageRepository;

  beforeAll(async () => {
    await requireInfra('postgres');
    db = await freshPostgresDatabase('mail_pg_prepared', MIGRATIONS_DIR);
    pool = await connectPostgres(db.url, 'mail-pg-prepared-it', createLogger('t', 'silent'), { max: 1 });
    templates = new PostgresTemplateRepository(pool);
    usage = new PostgresUsageCounter(pool);
    messages = new PostgresMessageRepository(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  const preparedStatements = async () =>
    (await pool.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).rows.map((r) =>
      r.statement.replace(/\s+/g, ' ').trim(),
    );

  /** What sending one templated mail runs (resolved by name, so both lookups), then a status read. */
  async function sendAndRead(outcome: 'sent' | 'failed') {
    const projectId = newProjectId();
    const owner = { scope: 'project' as const, projectId };
    const { template } = await templates.save(owner, `welcome-${outcome}`, {
      name: 'Welcome',
      subject: 'Hi',
    });
    expect((await templates.findByKeyOrName(owner, 'Welcome'))?.id).toBe(template.id);
    expect((await templates.findVisibleById(projectId, template.id))?.key).toBe(template.key);
    const slot = await usage.tryIncrement(projectId, 'month:2026-11', 100);
    expect(slot?.count).toBe(1);
    const id = newHexId();
    await messages.create(projectId, {
      id,
      to: 'ada@example.com',
      templateKey: template.key,
      system: false,
      provider: 'smtp',
      status: 'sending',
      createdAt: new Date(),
    });
    if (outcome === 'sent')
      await messages.markSent(projectId, id, 1, [
        createEvent('mail.sent', projectId, { messageId: id, templateKey: template.key, system: false }),
      ]);
    else
      await messages.markFailed(projectId, id, 3, 'refused', [
        createEvent('mail.failed', projectId, { messageId: id, reason: 'refused', permanent: true }),
      ]);
    expect((await messages.findById(projectId, id))?.status).toBe(outcome);
    expect((await messages.list(projectId, { limit: 10 })).map((m) => m.id)).toEqual([id]);
    await usage.release(projectId, 'month:2026-11', slot!.slot);
    expect(await usage.current(projectId, 'month:2026-11')).toBe(0);
  }

  it("prepares a send's and a status read's statements once and reuses them", async () => {
    await sendAndRead('sent');
    await sendAndRead('failed');
    const first = await preparedStatements();
    for (const [text, count] of [
      ['SELECT id, project_id, key, name', 3], // a template by key, by name, by id
      ['INSERT INTO usage_counters AS c', 1],
      ['UPDATE usage_counters SET used = used - 1', 1],
      ['SELECT used FROM usage_counters', 1],
      ['INSERT INTO messages (project_id, id, recipient', 1],
      ['UPDATE messages SET status = $3', 1], // sent and failed alike
      ['SELECT id, recipient, template_key', 2], // one message, a page of them
    ] as const)
      expect(first.filter((s) => s.startsWith(text))).toHaveLength(count);

    // other projects, other values: the same statements, nothing new prepared
    await sendAndRead('sent');
    await sendAndRead('failed');
    expect((await preparedStatements()).sort()).toEqual(first.sort());
  });

  it('a column a later migration adds does not make the prepared statements stale', async () => {
    await sendAndRead('sent');
    await pool.query('ALTER TABLE messages ADD COLUMN added_by_a_later_version text');
    await pool.query('ALTER TABLE templates ADD COLUMN added_by_a_later_version text');
    try {
      await sendAndRead('sent');
    } finally {
      await pool.query('ALTER TABLE messages DROP COLUMN added_by_a_later_version');
      await pool.query('ALTER TABLE templates DROP COLUMN added_by_a_later_version');
    }
  });
});
