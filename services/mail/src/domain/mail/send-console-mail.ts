import {
  isAppError,
  openConsoleCodes,
  SealedCodesRejected,
  type ConsoleCodeEventType,
  type EventEnvelope,
} from '@baas/common';
import type { MailDeps } from '../deps';
import { CONSOLE_TEMPLATE_KEYS } from '../templates/builtin';
import { resolveGlobalTemplate } from '../templates/resolve-template';
import { isValidAddress } from './address';
import { deliver } from './deliver';
import { renderMail } from './render';
import { sanitizeVariables } from './sanitize-variables';
import { RetryLater } from './send-system-mail';

export type ConsoleMailEvent = EventEnvelope<ConsoleCodeEventType>;

/** The console's hash routes the links open. */
const ROUTE = {
  'console.invitation_requested': 'accept-invitation',
  'console.password_reset_requested': 'reset-password',
} as const;

/** `<CONSOLE_URL>#/<route>?token=<token>`: the console reads the token from its hash route. */
export function consoleLink(consoleUrl: string, route: string, token: string): string {
  return `${consoleUrl}#/${route}?token=${encodeURIComponent(token)}`;
}

/** The template and variables of a console event's mail. */
function mailOf(
  event: ConsoleMailEvent,
  link: string,
  token: string,
): { key: string; variables: Record<string, unknown> } {
  if (event.type === 'console.invitation_requested') {
    const d = (event as EventEnvelope<'console.invitation_requested'>).data;
    return {
      key: CONSOLE_TEMPLATE_KEYS.invitation,
      variables: { email: d.email, projectName: d.projectName, role: d.role, link, token },
    };
  }
  return { key: CONSOLE_TEMPLATE_KEYS.passwordReset, variables: { email: event.data.email, link, token } };
}

/**
 * Sends a console invitation or a console account's password-reset mail for auth's event, with
 * the global `console-invitation` / `console-password-reset` template (the operator's version,
 * else the built-in one; a project cannot override them, so no project can reword a mail that
 * carries the platform's own link). The link token opens only in the event it was sealed for
 * (openConsoleCodes); an event that does not open is refused with SealedCodesRejected, so the bus
 * retries and then dead-letters it, and nothing is sent.
 *
 * These mails count against no limit: an invitation is an owner's deliberate act, and auth allows
 * one live reset code per account with a resend interval. An invitation is logged in its project's
 * sent-mail log; a password reset belongs to no project and is logged as the platform's.
 */
export async function sendConsoleMail(deps: MailDeps, event: ConsoleMailEvent): Promise<'sent' | 'dropped'> {
  const log = deps.logger.child({ eventId: event.id, type: event.type, projectId: event.projectId });
  let codes;
  try {
    codes = openConsoleCodes(deps.envelopeKeys, event);
  } catch (e) {
    if (e instanceof SealedCodesRejected)
      log.error({ reason: e.message }, 'console mail event refused: its token does not open with our keys');
    throw e;
  }
  const to = event.data.email;
  if (!isValidAddress(to)) {
    log.warn('console mail for an address that is not deliverable; dropped');
    deps.observer?.mail('system', 'dropped');
    return 'dropped';
  }
  const { key, variables } = mailOf(
    event,
    consoleLink(deps.consoleUrl, ROUTE[event.type], codes.token),
    codes.token,
  );
  const template = await resolveGlobalTemplate(deps, key);
  if (!template) throw new Error(`no template ${key}`); // the built-in always exists

  let mail;
  try {
    mail = renderMail(template.content, sanitizeVariables(variables));
  } catch (e) {
    // An operator's template that renders empty cannot get better by retrying.
    if (isAppError(e)) {
      log.error({ code: e.code, source: template.source }, 'console mail template does not render; dropped');
      deps.observer?.mail('system', 'dropped');
      return 'dropped';
    }
    throw e;
  }

  const result = await deliver(deps, {
    projectId: event.projectId,
    requestId: event.requestId,
    to,
    mail,
    templateKey: template.key,
    system: true,
    causedBy: event.id,
  });
  if (result.ok) return 'sent';
  if (result.error.permanent) {
    log.error(
      { messageId: result.id, reason: result.error.message },
      'console mail refused by the server; not retried',
    );
    return 'dropped';
  }
  throw new RetryLater(`transient smtp failure: ${result.error.message}`);
}
