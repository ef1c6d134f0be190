import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  connectNats,
  createLogger,
  DLQ_STREAM,
  EVENTS_STREAM,
  INVALIDATION_SUBJECT,
  JANITOR_SUBJECTS,
  pruneProcessedEventsSubject,
  type JanitorReply,
} from '@baas/common';
import { stackEnv, stackNatsAuth, stackServiceNats } from '../support/stack-env';

/**
 * Issue 12 item 12: the stack's NATS (deploy/nats/dev.conf) refuses connections without a user,
 * and each service's user may do only what that service does (deploy/nats/permissions.conf).
 * Every refusal is paired with something the same connection may do, so a refusal cannot come
 * from a broken connection.
 */
const env = stackEnv();
const url = env.NATS_URL ?? 'nats://127.0.0.1:4223';
const logger = createLogger('nats-permissions-e2e', 'silent');
const opened: NatsConnection[] = [];
type Service = 'auth' | 'data' | 'storage' | 'mail' | 'janitor' | 'gateway';

/** A connection as the service's own user, with its inbox prefix, as the service connects. */
async function as(service: Service): Promise<NatsConnection> {
  const c = stackServiceNats(service);
  const nc = await connectNats(url, `e2e-as-${service}`, logger, {
    user: c.NATS_USER,
    pass: c.NATS_PASSWORD,
    inboxPrefix: `_INBOX.${service}`,
  });
  opened.push(nc);
  return nc;
}

const payload = (o: unknown) => JSON.stringify(o);
const janitorCommand = () => payload({ olderThan: new Date(0).toISOString(), batchSize: 1 });

/** The server refuses the request's subject to this user (a permissions violation). */
async function refused(p: Promise<unknown>): Promise<void> {
  const err: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  const cause = (err as { cause?: unknown }).cause;
  expect(`${String(err)} ${cause instanceof Error ? cause.message : ''}`).toMatch(/permissions violation/i);
}

afterAll(async () => {
  await Promise.all(opened.map((nc) => nc.close()));
});

describe('NATS authentication', () => {
  it('refuses a connection without credentials, with a wrong password, or with another user’s password', async () => {
    await expect(connect({ servers: url, reconnect: false })).rejects.toThrow(/authori[sz]ation/i);
    const data = stackServiceNats('data');
    await expect(connect({ servers: url, reconnect: false, user: 'data', pass: 'wrong' })).rejects.toThrow(
      /authori[sz]ation/i,
    );
    await expect(
      connect({ servers: url, reconnect: false, user: 'janitor', pass: data.NATS_PASSWORD }),
    ).rejects.toThrow(/authori[sz]ation/i);
    // the service's own password works
    const ok = await as('data');
    await ok.flush();
  });
});

describe('NATS permissions per service', () => {
  it('only the janitor sends janitor commands; every other user, the tests’ included, is refused', async () => {
    const janitor = await as('janitor');
    const reply = (
      await janitor.request(JANITOR_SUBJECTS.purgeExpiredSessions, janitorCommand(), {
        timeout: 10_000,
      })
    ).json<JanitorReply>();
    expect(reply.ok).toBe(true);

    const subjects = [
      JANITOR_SUBJECTS.purgeTrash,
      JANITOR_SUBJECTS.sweepOrphans,
      JANITOR_SUBJECTS.purgeExpiredSessions,
      pruneProcessedEventsSubject('mail'),
    ];
    for (const service of ['auth', 'data', 'storage', 'mail', 'gateway'] as const) {
      const nc = await as(service);
      for (const subject of subjects) await refused(nc.request(subject, janitorCommand(), { timeout: 5000 }));
    }
    const tests = await connectNats(url, 'e2e-test-user', logger, stackNatsAuth(env));
    opened.push(tests);
    await refused(tests.request(JANITOR_SUBJECTS.purgeTrash, janitorCommand(), { timeout: 5000 }));
  });

  it('a service publishes its own events only', async () => {
    const forged: Array<[Service, string]> = [
      ['data', 'baas.events.user.deleted'],
      ['data', 'baas.events.auth.session_revoked'],
      ['storage', 'baas.events.project.deleted'],
      ['mail', 'baas.events.auth.password_reset_requested'],
      ['mail', 'baas.events.console.password_reset_requested'],
      ['data', 'baas.events.console.invitation_requested'],
      ['mail', 'baas.events.document.created'],
      ['auth', 'baas.events.file.deleted'],
      ['janitor', 'baas.events.project.deleted'],
      ['gateway', 'baas.events.user.deleted'],
      // cache invalidation is auth's; dead letters are the consuming service's
      ['data', INVALIDATION_SUBJECT],
      ['gateway', INVALIDATION_SUBJECT],
      ['storage', 'baas.dlq.mail-auth-emails'],
    ];
    for (const [service, subject] of forged) {
      const nc = await as(service);
      await refused(nc.request(subject, payload({ forged: true }), { timeout: 5000 }));
    }
    // what the services do themselves: stream info through the JetStream API
    const jsm = await jetstreamManager(await as('data'));
    expect((await jsm.streams.info(EVENTS_STREAM)).config.name).toBe(EVENTS_STREAM);
  });

  it('no service reads, creates over or deletes another service’s consumers, nor deletes or purges a stream', async () => {
    const attempts: Array<[Service, string]> = [
      // mail's consumer of the verification and reset events (their codes travel sealed for mail)
      ['storage', `$JS.API.CONSUMER.MSG.NEXT.${EVENTS_STREAM}.mail-auth-emails`],
      ['data', `$JS.API.CONSUMER.MSG.NEXT.${EVENTS_STREAM}.mail-auth-emails`],
      ['auth', `$JS.API.CONSUMER.MSG.NEXT.${EVENTS_STREAM}.mail-auth-emails`],
      // and of the console's invitation and reset events (sealed for mail too)
      ['auth', `$JS.API.CONSUMER.MSG.NEXT.${EVENTS_STREAM}.mail-console-emails`],
      ['storage', `$JS.API.CONSUMER.INFO.${EVENTS_STREAM}.mail-console-emails`],
      ['data', `$JS.API.CONSUMER.INFO.${EVENTS_STREAM}.auth-audit-log`],
      ['data', `$JS.API.CONSUMER.DELETE.${EVENTS_STREAM}.mail-auth-emails`],
      ['storage', `$JS.API.CONSUMER.DELETE.${EVENTS_STREAM}.storage-project-deleted`],
      ['mail', `$JS.API.CONSUMER.CREATE.${EVENTS_STREAM}.auth-audit-log`],
      // an ordered consumer only on the revocation events, never on the code events
      ['data', `$JS.API.CONSUMER.CREATE.${EVENTS_STREAM}.snoop.baas.events.auth.verification_requested`],
      ['storage', `$JS.API.CONSUMER.CREATE.${EVENTS_STREAM}.snoop.baas.events.console.invitation_requested`],
      ['storage', `$JS.API.CONSUMER.CREATE.${EVENTS_STREAM}.snoop.baas.events.>`],
      ['data', `$JS.API.STREAM.DELETE.${EVENTS_STREAM}`],
      ['auth', `$JS.API.STREAM.PURGE.${EVENTS_STREAM}`],
      ['mail', `$JS.API.STREAM.DELETE.${DLQ_STREAM}`],
      ['storage', `$JS.API.STREAM.MSG.GET.${EVENTS_STREAM}`],
      ['janitor', `$JS.API.STREAM.INFO.${EVENTS_STREAM}`],
      ['gateway', `$JS.API.STREAM.INFO.${EVENTS_STREAM}`],
    ];
    for (const [service, subject] of attempts) {
      const nc = await as(service);
      await refused(nc.request(subject, payload({ batch: 1, expires: 1_000_000_000 }), { timeout: 5000 }));
    }
    // what mail itself does: read its own durable consumer's state
    const mail = await jetstreamManager(await as('mail'));
    expect((await mail.consumers.info(EVENTS_STREAM, 'mail-auth-emails')).name).toBe('mail-auth-emails');
    expect((await mail.consumers.info(EVENTS_STREAM, 'mail-console-emails')).name).toBe(
      'mail-console-emails',
    );
  });

  it('no service subscribes to events, another service’s replies or another’s janitor commands', async () => {
    const attempts: Array<[Service, string]> = [
      ['data', 'baas.events.>'],
      ['storage', 'baas.events.auth.verification_requested'],
      ['gateway', 'baas.events.>'],
      ['data', '_INBOX.mail.>'],
      ['mail', '_INBOX.>'],
      ['storage', 'baas.janitor.data.purge-trash'],
      ['janitor', 'baas.janitor.>'],
    ];
    for (const [service, subject] of attempts) {
      const nc = await as(service);
      const sub = nc.subscribe(subject);
      const closed: unknown = await Promise.race([
        sub.closed,
        new Promise((r) => setTimeout(() => r('still open'), 5000)),
      ]);
      expect(String(closed)).toMatch(/permissions violation/i);
    }
  });
});
