import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { INVALIDATION_SUBJECT } from '@baas/common';
import type { CachedProjectDirectory } from '../domain/cached-project-directory';

/**
 * Drops cached keys when the auth service says a project changed. Messages sent while we were
 * disconnected are lost, so a reconnect starts from an empty cache.
 */
export function subscribeInvalidations(nc: NatsConnection, directory: CachedProjectDirectory): Subscription {
  const sub = nc.subscribe(INVALIDATION_SUBJECT, {
    callback: (err, msg) => {
      if (err) return;
      try {
        directory.invalidateProject(msg.json<{ projectId: string }>().projectId);
      } catch {
        directory.clear();
      }
    },
  });
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'reconnect') directory.clear();
  })();
  return sub;
}
