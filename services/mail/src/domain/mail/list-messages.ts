import { invalidCursor, timeKeysetPage, type AdminPage, type TimeKeysetRequest } from '@baas/common';
import type { MessageOwner, MessageStatus, StoredMessage } from '../../ports';
import type { MailDeps } from '../deps';

/** A sent (or failed, or still sending) message as the admin API shows it; bodies are not kept. */
export interface MessageView {
  id: string;
  to: string;
  templateKey: string | null;
  /** A platform mail (verification, reset, console invitation) rather than an API send. */
  system: boolean;
  provider: string;
  status: MessageStatus;
  attempts: number | null;
  error: string | null;
  createdAt: string;
}

function messageView(m: StoredMessage): MessageView {
  return {
    id: m.id,
    to: m.to,
    templateKey: m.templateKey ?? null,
    system: m.system,
    provider: m.provider,
    status: m.status,
    attempts: m.attempts ?? null,
    error: m.error ?? null,
    createdAt: m.createdAt.toISOString(),
  };
}

/** One page of a project's sent-mail log (or, for null, the platform's), newest first. */
export async function listMessages(
  deps: Pick<MailDeps, 'messages'>,
  owner: MessageOwner,
  req: TimeKeysetRequest,
): Promise<AdminPage<MessageView>> {
  // Message ids are 24-hex; anything else in a cursor was not made here.
  if (req.before && !/^[a-f0-9]{24}$/.test(req.before.id)) throw invalidCursor();
  const rows = await deps.messages.list(owner, {
    limit: req.limit + 1,
    before: req.before,
  });
  return timeKeysetPage(rows, req, (m) => ({ at: m.createdAt, id: m.id }), messageView);
}
