import type { MailDeps } from '../deps';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Usage slots are one document per mail, kept only while their bucket can still matter: a month
 * bucket until the month is surely over (62 days after the claim), a day or recipient-hour bucket
 * for two days. FerretDB has no TTL indexes, so this runs on a timer.
 */
export async function sweepUsage(deps: Pick<MailDeps, 'usage' | 'now' | 'logger'>): Promise<void> {
  const now = deps.now().getTime();
  const months = await deps.usage.deleteClaimedBefore('month:', new Date(now - 62 * DAY_MS));
  const system = await deps.usage.deleteClaimedBefore('system-', new Date(now - 2 * DAY_MS));
  if (months + system > 0) deps.logger.info({ months, system }, 'old usage slots removed');
}
