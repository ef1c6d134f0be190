import type { JanitorCommand, JanitorReply } from '@baas/common';
import type {
  AuditLog,
  CodeClaims,
  ConsoleAccountRepository,
  ConsoleMemberRepository,
  ConsoleSessionRepository,
  SessionRepository,
  UserRepository,
} from '../../ports';

type Purge = (cutoff: Date, limit: number) => Promise<number>;

/**
 * The janitor's purge-expired command: refresh tokens and families that can no longer be used,
 * expired one-time codes, and the console's expired or revoked sessions, expired invitations and
 * reset codes, and audit entries older than the retention (`AUDIT_RETENTION_DAYS`; none when
 * it is 0), at most `batchSize` items per call (the janitor calls again while `more` is true).
 * The cutoff is the earlier of `olderThan` and now, so nothing live is removed; the audit log's
 * is its own (now minus the retention).
 */
export async function purgeExpired(
  deps: {
    users: UserRepository;
    sessions: SessionRepository;
    claims: CodeClaims;
    clock: () => Date;
    console?: {
      accounts: Pick<ConsoleAccountRepository, 'purgeExpired'>;
      sessions: Pick<ConsoleSessionRepository, 'purgeExpired'>;
      members: Pick<ConsoleMemberRepository, 'purgeExpired'>;
    };
    auditRetention?: { log: Pick<AuditLog, 'purgeBefore'>; days: number };
  },
  cmd: JanitorCommand,
): Promise<JanitorReply> {
  const now = deps.clock();
  const asked = new Date(cmd.olderThan);
  const cutoff = Number.isNaN(asked.getTime()) || asked > now ? now : asked;
  const limit = Math.max(1, Math.min(10_000, Math.floor(cmd.batchSize) || 500));
  const kinds: Purge[] = [
    (c, n) => deps.sessions.purgeExpired(c, n),
    (c, n) => deps.users.purgeExpiredCodes(c, n),
    (c, n) => deps.claims.purgeExpired(c, n),
  ];
  const consoleStores = deps.console;
  if (consoleStores)
    kinds.push(
      (c, n) => consoleStores.sessions.purgeExpired(c, n),
      (c, n) => consoleStores.members.purgeExpired(c, n),
      (c, n) => consoleStores.accounts.purgeExpired(c, n),
    );
  const retention = deps.auditRetention;
  if (retention && retention.days > 0) {
    const kept = new Date(now.getTime() - retention.days * 86_400_000);
    kinds.push((_c, n) => retention.log.purgeBefore(kept, n));
  }
  let processed = 0;
  for (const purge of kinds) {
    if (processed >= limit) break;
    processed += await purge(cutoff, limit - processed);
  }
  return { ok: true, processed, more: processed >= limit };
}
