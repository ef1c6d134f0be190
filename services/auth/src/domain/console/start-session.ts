import { consoleSessionTokenHash } from '@baas/common';
import type { ConsoleDeps } from './deps';
import type { ConsoleAccount, ConsoleSessionRecord } from './account';
import { newConsoleToken, truncatedUserAgent } from './tokens';
import { sessionView, type SessionView } from './session-view';

/** Where a sign-in came from (kept with the session, informational). */
export interface ClientInfo {
  clientIp: string | null;
  userAgent: string | undefined;
}

/** A new session: the token (for the cookie, shown once), its end and what the console shows. */
export interface SignedIn {
  token: string;
  expiresAt: Date;
  view: SessionView;
}

/** Starts a session of the account: a fresh 256-bit token, stored only as its SHA-256. */
export async function startConsoleSession(
  deps: ConsoleDeps,
  account: ConsoleAccount,
  client: ClientInfo,
): Promise<SignedIn> {
  const now = deps.clock();
  const token = newConsoleToken();
  const session: ConsoleSessionRecord = {
    id: deps.ids.id(),
    accountId: account.id,
    tokenHash: consoleSessionTokenHash(token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + deps.policy.sessionTtlSeconds * 1000),
    clientIp: client.clientIp,
    userAgent: truncatedUserAgent(client.userAgent),
  };
  await deps.sessions.insert(session);
  return { token, expiresAt: session.expiresAt, view: await sessionView(deps, account, session, token) };
}
