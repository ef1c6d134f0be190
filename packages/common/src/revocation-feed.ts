import type { JetStreamClient } from '@nats-io/jetstream';
import type { EventsObserver } from './events/observer';
import type { Logger } from './logger';
import type { ReadinessCheck } from './http/bootstrap';
import { followEvents } from './events/follow-events';
import { RevocationList } from './revocation-list';
import { ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS, MAX_ACCESS_TOKEN_LIFETIME_SECONDS } from './user-tokens';

export interface RevocationFeed {
  list: RevocationList;
  /** Not ready until the revocations of the last token lifetime are applied. */
  readiness: ReadinessCheck;
  /** Resolves once caught up (tests; a process just reports not-ready until then). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export interface RevocationFeedOptions {
  /** The longest access-token lifetime the service's verifier accepts (its `maxLifetimeSeconds`). */
  maxTokenLifetimeSeconds?: number;
  sweepIntervalMs?: number;
  /** Counts the events the list applies (consumer `revocations`). */
  observer?: EventsObserver;
}

/**
 * The revocation list of one replica, fed by auth's `auth.session_revoked` and `user.deleted`
 * events through per-replica ordered consumers. On start it replays the window in which a
 * revoked token could still be valid, so a new replica refuses what the others refuse.
 */
export async function startRevocationFeed(
  js: JetStreamClient,
  logger: Logger,
  opts: RevocationFeedOptions = {},
): Promise<RevocationFeed> {
  const lifetime = opts.maxTokenLifetimeSeconds ?? MAX_ACCESS_TOKEN_LIFETIME_SECONDS;
  const windowMs = (lifetime + ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS) * 1000;
  const list = new RevocationList(windowMs);
  const follower = await followEvents(js, logger, {
    types: ['auth.session_revoked', 'user.deleted'],
    since: new Date(Date.now() - windowMs),
    onEvent: (e) => void list.apply(e),
    name: 'revocations',
    observer: opts.observer,
  });
  const sweep = setInterval(() => list.sweep(), opts.sweepIntervalMs ?? 60_000);
  sweep.unref();
  void follower.ready.then(() => logger.info({ entries: list.size }, 'revocation list caught up'));
  return {
    list,
    ready: follower.ready,
    readiness: {
      name: 'revocations',
      check: () =>
        follower.caughtUp()
          ? Promise.resolve()
          : Promise.reject(new Error('revocation list still catching up')),
    },
    stop: async () => {
      clearInterval(sweep);
      await follower.stop();
    },
  };
}
