import client from 'prom-client';
import { METRIC_PREFIX, type Metrics } from '@baas/common';
import type { MailKind, MailObserver, MailOutcome } from './ports';

const KINDS: readonly MailKind[] = ['system', 'template', 'direct'];
const OUTCOMES: readonly MailOutcome[] = ['sent', 'failed', 'limited', 'dropped'];

/** Mails by kind (system, template, direct) and outcome (sent, failed, limited, dropped). */
export function mailMetrics(metrics: Metrics): MailObserver {
  const messages = new client.Counter({
    name: `${METRIC_PREFIX}mail_messages_total`,
    help: 'Mails by kind (system: verification and reset; template or direct: the send API) and outcome (sent, failed, limited, dropped)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [metrics.registry],
  });
  for (const kind of KINDS) for (const outcome of OUTCOMES) messages.inc({ kind, outcome }, 0);
  return { mail: (kind, outcome) => messages.inc({ kind, outcome }) };
}
