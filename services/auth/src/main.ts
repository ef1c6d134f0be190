import path from 'node:path';
import { startTelemetry } from '@baas/common/telemetry';
const telemetry = startTelemetry('auth');

import {
  createLogger,
  createMetrics,
  outboxMetrics,
  idempotent,
  JANITOR_SUBJECTS,
  redactConfig,
  runService,
  answerJanitor,
  connectServiceInfra,
  runMain,
  assertionVerificationKeys,
} from '@baas/common';
import { loadAuthConfig } from './config';
import { createApp } from './app';
import { NatsCacheInvalidator } from './adapters/nats-cache-invalidator';
import { wireAuth } from './wiring';
import { purgeExpired } from './domain/maintenance/purge-expired';
import { deleteProjectUsers } from './domain/maintenance/delete-project-users';
import { recordAuditEntry } from './domain/audit/record-audit-entry';

/** This service's SQL migrations (PostgreSQL), next to dist/ in the package. */
const MIGRATIONS_DIR = path.resolve(__dirname, '../migrations');

async function main(): Promise<void> {
  const config = loadAuthConfig();
  const logger = createLogger('auth', config.LOG_LEVEL);
  logger.info({ config: redactConfig(config) }, 'starting');

  const metrics = createMetrics('auth', { store: config.DATABASE_URL.kind });
  const infra = await connectServiceInfra('auth', config, logger, MIGRATIONS_DIR, { metrics });
  const { nc, bus } = infra;

  const invalidator = new NatsCacheInvalidator(nc);
  const auth = await wireAuth(infra.store, config, logger, bus, {
    metrics,
    setUp: config.DB_MIGRATE_ON_BOOT,
    invalidator,
  });
  auth.relay.start(outboxMetrics(metrics));
  auth.deps.keys.startAutoReload();
  const retireTimer = setInterval(() => {
    auth.deps.keys
      .retireStale(config.ACCESS_TOKEN_TTL_SECONDS)
      .catch((err: unknown) => logger.warn({ err }, 'key retirement failed'));
  }, 300_000);
  retireTimer.unref();

  const durable = 'auth-project-deleted';
  const projectDeleted = await bus.consume({
    durable,
    types: ['project.deleted'],
    handler: idempotent(auth.processed, durable, (event) => deleteProjectUsers(auth, event.projectId)),
  });
  // The audit log: every service's admin actions arrive as audit.recorded from its outbox. The
  // append is idempotent by event id, so no separate claim is needed.
  const auditRecorded = await bus.consume({
    durable: 'auth-audit-log',
    types: ['audit.recorded'],
    handler: (event) => recordAuditEntry(auth.audit, event),
  });
  const janitor = answerJanitor(nc, JANITOR_SUBJECTS.purgeExpiredSessions, logger, (cmd) =>
    purgeExpired(
      {
        users: auth.users,
        sessions: auth.sessions,
        claims: auth.claims,
        console: auth.console,
        auditRetention: { log: auth.audit, days: config.AUDIT_RETENTION_DAYS },
        clock: () => new Date(),
      },
      cmd,
    ),
  );

  const serviceApp = createApp({
    logger,
    metrics,
    assertionPublicKey: assertionVerificationKeys(config),
    readiness: infra.readiness,
    projects: {
      projects: auth.projects,
      invalidator,
      ids: auth.projectIds,
      members: auth.console.members,
      defaults: {
        storageBytes: config.DEFAULT_STORAGE_QUOTA_BYTES,
        documents: config.DEFAULT_DOCUMENT_QUOTA,
        mailMonthly: config.DEFAULT_MAIL_MONTHLY_LIMIT,
      },
    },
    auth: auth.deps,
    audit: auth.audit,
    console: auth.console,
  });

  await runService({
    name: 'auth',
    port: config.PORT,
    logger,
    serviceApp,
    graceSeconds: config.SHUTDOWN_GRACE_SECONDS,
    closers: [
      { name: 'janitor', close: () => janitor.close() },
      { name: 'consumers', close: () => projectDeleted.stop() },
      { name: 'audit-consumer', close: () => auditRecorded.stop() },
      ...auth.closers,
      ...infra.closers,
      { name: 'telemetry', close: () => telemetry.shutdown() },
    ],
  });
}

runMain(main);
