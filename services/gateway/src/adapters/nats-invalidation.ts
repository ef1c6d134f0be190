import type { NatsConnection } from '@nats-io/nats-core';
import { CONSOLE_INVALIDATION_SUBJECT, INVALIDATION_SUBJECT, withConsumerSpans } from '@baas/common';
import type { CachedProjectDirectory } from '../domain/cached-project-directory';
import type { CachedConsoleSessions } from '../domain/cached-console-sessions';

/**
 * Drops cached keys when the auth service says a project changed, and cached console sessions
 * when it says an account's sessions, roles or flags changed. Messages sent while we were
 * disconnected are lost, so a reconnect starts from empty caches.
 */
export function subscribeInvalidations(
  nc: NatsConnection,
  directory: CachedProjectDirectory,
  sessions?: CachedConsoleSessions,
): { unsubscribe(): void } {
  nc = withConsumerSpans(nc); // each message handled in a CONSUMER span of the publisher's trace
  const subs = [
    nc.subscribe(INVALIDATION_SUBJECT, {
      callback: (err, msg) => {
        if (err) return;
        try {
          directory.invalidateProject(msg.json<{ projectId: string }>().projectId);
        } catch {
          directory.clear();
        }
      },
    }),
  ];
  if (sessions)
    subs.push(
      nc.subscribe(CONSOLE_INVALIDATION_SUBJECT, {
        callback: (err, msg) => {
          if (err) return;
          let accountId: unknown;
          try {
            accountId = msg.json<{ accountId?: unknown }>().accountId;
          } catch {
            /* unreadable: forget everything below */
          }
          if (typeof accountId === 'string') sessions.invalidateAccount(accountId);
          else sessions.clear();
        },
      }),
    );
  void (async () => {
    for await (const s of nc.status())
      if (s.type === 'reconnect') {
        directory.clear();
        sessions?.clear();
      }
  })();
  return { unsubscribe: () => subs.forEach((s) => s.unsubscribe()) };
}
