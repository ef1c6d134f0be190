import { isAppError, openCodes, SealedCodesRejected, type EventEnvelope } from '@baas/common';
import type { MailDeps } from '../deps';
import { recipientHourBucket, systemDayBucket } from '../usage/buckets';
import { resolveTemplateByName } from '../templates/resolve-template';
import { isValidAddress } from './address';
import { deliver } from './deliver';
import { renderMail } from './render';
import { sanitizeVariables } from './sanitize-variables';

export type SystemMailEvent = EventEnvelope<'auth.verification_requested' | 'auth.password_reset_requested'>;

const PURPOSE = {
  'auth.verification_requested': { key: 'verify-email', path: 'verify-email' },
  'auth.password_reset_requested': { key: 'password-reset', path: 'reset-password' },
} as const;

/** Thrown so the bus redelivers later (with its backoff); the idempotency claim is released. */
export class RetryLater extends Error {}

/**
 * Sends a verification or password-reset mail for an auth event, with the `verify-email` /
 * `password-reset` template (project override, global, then built-in). The event carries the
 * link token and the 8-digit code sealed for this service (MAIL_ENVELOPE_KEY); an event whose
 * codes do not open (another version, another key, tampered or moved to another event) is
 * refused with SealedCodesRejected, so the bus retries it and then dead-letters it, and nothing
 * is sent. These mails do not count
 * against the project's monthly API limit; instead a per-project daily cap and a per-recipient
 * hourly cap bound what a signup or reset flood can send. Mail over a cap is dropped, recorded
 * as failed, and not retried.
 */
export async function sendSystemMail(deps: MailDeps, event: SystemMailEvent): Promise<'sent' | 'dropped'> {
  const { projectId, data } = event;
  const purpose = PURPOSE[event.type];
  const log = deps.logger.child({ eventId: event.id, type: event.type, projectId });
  let codes;
  try {
    codes = openCodes(deps.envelopeKeys, event);
  } catch (e) {
    if (e instanceof SealedCodesRejected)
      log.error({ reason: e.message }, 'system mail event refused: its codes do not open with our keys');
    throw e;
  }
  if (!isValidAddress(data.email)) {
    log.warn('system mail for an address that is not deliverable; dropped');
    deps.observer?.mail('system', 'dropped');
    return 'dropped';
  }
  const template = await resolveTemplateByName(deps, projectId, purpose.key);
  if (!template) throw new Error(`no template ${purpose.key}`); // the built-in always exists
  const expires = new Date(data.expiresAt);
  // `code` and `otp`: the 8-digit code ({ email, otp }); `token`: the link token ({ token }).
  const variables: Record<string, unknown> = {
    email: data.email,
    code: codes.otp,
    otp: codes.otp,
    token: codes.token,
    expiresAt: Number.isNaN(expires.getTime()) ? data.expiresAt : expires.toUTCString(),
    expiresInMinutes: Number.isNaN(expires.getTime())
      ? null
      : Math.max(0, Math.round((expires.getTime() - deps.now().getTime()) / 60000)),
  };
  if (deps.linkBaseUrl)
    variables.link = `${deps.linkBaseUrl.replace(/\/$/, '')}/${purpose.path}?token=${encodeURIComponent(codes.token)}&email=${encodeURIComponent(data.email)}`;

  let mail;
  try {
    mail = renderMail(template.content, sanitizeVariables(variables));
  } catch (e) {
    // A project override that renders empty cannot get better by retrying.
    if (isAppError(e)) {
      log.error({ code: e.code, source: template.source }, 'system mail template does not render; dropped');
      deps.observer?.mail('system', 'dropped');
      return 'dropped';
    }
    throw e;
  }

  const now = deps.now();
  const day = systemDayBucket(now);
  const hour = recipientHourBucket(now, data.email);
  const daySlot = await deps.usage.tryIncrement(projectId, day, deps.limits.systemDaily);
  const hourSlot =
    daySlot === null
      ? null
      : await deps.usage.tryIncrement(projectId, hour, deps.limits.systemRecipientHourly);
  if (daySlot === null || hourSlot === null) {
    if (daySlot !== null) await deps.usage.release(projectId, day, daySlot.slot);
    log.warn(
      { cap: daySlot === null ? 'project-daily' : 'recipient-hourly' },
      'system mail cap reached; dropped',
    );
    deps.observer?.mail('system', 'limited');
    return 'dropped';
  }

  const release = async () => {
    await deps.usage.release(projectId, day, daySlot.slot);
    await deps.usage.release(projectId, hour, hourSlot.slot);
  };
  let result;
  try {
    result = await deliver(deps, {
      projectId,
      requestId: event.requestId,
      to: data.email,
      mail,
      templateKey: template.key,
      system: true,
      causedBy: event.id,
    });
  } catch (e) {
    await release();
    throw e;
  }
  if (result.ok) return 'sent';
  await release();
  if (result.error.permanent) {
    log.error(
      { messageId: result.id, reason: result.error.message },
      'system mail refused by the server; not retried',
    );
    return 'dropped';
  }
  throw new RetryLater(`transient smtp failure: ${result.error.message}`);
}
