import { createHash } from 'node:crypto';

/** Usage buckets follow the calendar in UTC, so a month's count starts again on the 1st. */
export const monthBucket = (now: Date): string => `month:${now.toISOString().slice(0, 7)}`;
export const systemDayBucket = (now: Date): string => `system-day:${now.toISOString().slice(0, 10)}`;
/** The address is hashed: the bucket name is an id, not a place to keep addresses. */
export const recipientHourBucket = (now: Date, address: string): string =>
  `system-rcpt:${createHash('sha256').update(address.toLowerCase()).digest('hex').slice(0, 32)}:${now.toISOString().slice(0, 13)}`;

export function secondsUntilNextMonth(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}
