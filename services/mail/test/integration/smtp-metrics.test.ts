import { randomUUID } from 'node:crypto';
import { createMetrics, dependencyMetrics } from '@baas/common';
import { infra, requireInfra } from '../../../../test/support/infra';
import { SmtpMailer } from '../../src/adapters/smtp-mailer';
import { dependencyCallCounts } from '../../../../test/support/dependency-metrics';

/** Every message the mail service hands to its SMTP server is timed, by outcome. */
describe('dependency metrics of the SMTP mailer', () => {
  beforeAll(() => requireInfra('smtp'));

  it('records a delivered message as ok and a server that does not answer as failed', async () => {
    const metrics = createMetrics('test');
    const options = {
      secure: false,
      maxConnections: 1,
      from: 'no-reply@baas.local',
      dependencies: dependencyMetrics(metrics),
    };
    const up = new SmtpMailer({ ...options, host: infra.smtpHost, port: infra.smtpPort });
    const down = new SmtpMailer({ ...options, host: '127.0.0.1', port: 1 });
    const mail = { id: randomUUID(), to: 'metrics@example.com', subject: 'metrics', text: 'x' };
    try {
      await up.send(mail);
      await expect(down.send({ ...mail, id: randomUUID() })).rejects.toThrow();
      expect(await dependencyCallCounts(metrics, 'smtp')).toEqual({ 'send|ok': 1, 'send|failed': 1 });
    } finally {
      up.close();
      down.close();
    }
  });
});
