import type { JanitorCommand, JanitorReply } from '@baas/common';
import type { CodeClaims, SessionRepository, UserRepository } from '../../ports';

/**
 * The janitor's purge-expired command: refresh tokens and families that can no longer be used,
 * and expired one-time codes, at most `batchSize` items per call (the janitor calls again while
 * `more` is true). The cutoff is the earlier of `olderThan` and now, so nothing live is removed.
 */
export async function purgeExpired(
  deps: { users: UserRepository; sessions: SessionRepository; claims: CodeClaims; clock: () => Date },
  cmd: JanitorCommand,
): Promise<JanitorReply> {
  const now = deps.clock();
  const asked = new Date(cmd.olderThan);
  const cutoff = Number.isNaN(asked.getTime()) || asked > now ? now : asked;
  const limit = Math.max(1, Math.min(10_000, Math.floor(cmd.batchSize) || 500));
  const sessions = await deps.sessions.purgeExpired(cutoff, limit);
  const codes = sessions < limit ? await deps.users.purgeExpiredCodes(cutoff, limit - sessions) : 0;
  const used = sessions + codes;
  const claims = used < limit ? await deps.claims.purgeExpired(cutoff, limit - used) : 0;
  const processed = used + claims;
  return { ok: true, processed, more: processed >= limit };
}
