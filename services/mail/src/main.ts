import { startTelemetry } from '@baas/common/telemetry';
const telemetry = startTelemetry('mail');

import {
  createLogger,
  createMetrics,
  dependencyMetrics,
  redactConfig,
  runService,
  connectServiceInfra,
  runMain,
  assertionVerificationKeys,
} from '@baas/common';
import { loadMailConfig } from './config';
import { createApp } from './app';
import { startConsumers } from './consumers';
import { SmtpMailer } from './adapters/smtp-mailer';
import { sweepUsage } from './domain/usage/sweep-usage';
import { MIGRATIONS_DIR, wireMail } from './wiring';

async function main(): Promise<void> {
  const config = loadMailConfig();
  const logger = createLogger('mail', config.LOG_LEVEL);
  logger.info({ config: redactConfig(config) }, 'starting');

  const metrics = createMetrics('mail', { store: config.DATABASE_URL.kind });
  const infra = await connectServiceInfra('mail', config, logger, MIGRATIONS_DIR, { metrics });
  const { bus } = infra;

  const mailer = new SmtpMailer({
    host: config.SMTP_HOST,
    port: config.SMTP_PORT,
    secure: config.SMTP_SECURE,
    maxConnections: config.SMTP_POOL_MAX_CONNECTIONS,
    from: config.MAIL_FROM,
    dependencies: dependencyMetrics(metrics),
    ...(config.SMTP_USER !== undefined ? { user: config.SMTP_USER } : {}),
    ...(config.SMTP_PASSWORD !== undefined ? { password: config.SMTP_PASSWORD } : {}),
  });

  const wired = await wireMail({
    setUp: config.DB_MIGRATE_ON_BOOT,
    store: infra.store,
    publisher: bus,
    logger,
    metrics,
    mailer,
    limits: {
      defaultMonthly: config.DEFAULT_MAIL_MONTHLY_LIMIT,
      systemDaily: config.SYSTEM_MAIL_DAILY_LIMIT,
      systemRecipientHourly: config.SYSTEM_MAIL_RECIPIENT_HOURLY_LIMIT,
    },
    retry: { attempts: config.SMTP_SEND_ATTEMPTS, baseDelayMs: config.SMTP_RETRY_BASE_MS },
    envelopeKeys: [
      config.MAIL_ENVELOPE_KEY,
      ...(config.MAIL_ENVELOPE_PREVIOUS_KEY ? [config.MAIL_ENVELOPE_PREVIOUS_KEY] : []),
    ],
    ...(config.MAIL_LINK_BASE_URL !== undefined ? { linkBaseUrl: config.MAIL_LINK_BASE_URL } : {}),
    consoleUrl: config.CONSOLE_URL,
  });
  const { deps } = wired;
  const consumers = await startConsumers(bus, deps, wired.processed);
  const sweep = () =>
    void sweepUsage(deps).catch((err: unknown) => logger.warn({ err }, 'usage sweep failed'));
  const sweepTimer = setInterval(sweep, 60 * 60 * 1000);
  sweepTimer.unref();
  sweep();

  const serviceApp = createApp({
    logger,
    metrics,
    assertionPublicKey: assertionVerificationKeys(config),
    readiness: infra.readiness,
    mail: deps,
  });

  await runService({
    name: 'mail',
    port: config.PORT,
    logger,
    serviceApp,
    graceSeconds: config.SHUTDOWN_GRACE_SECONDS,
    closers: [
      { name: 'sweep', close: () => Promise.resolve(clearInterval(sweepTimer)) },
      { name: 'consumers', close: async () => void (await Promise.all(consumers.map((c) => c.stop()))) },
      ...wired.closers,
      { name: 'smtp', close: () => Promise.resolve(mailer.close()) },
      ...infra.closers,
      { name: 'telemetry', close: () => telemetry.shutdown() },
    ],
  });
}

runMain(main);
