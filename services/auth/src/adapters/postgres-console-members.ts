import { trustedProjectId, type ConsoleRole, type EventEnvelope, type ProjectId } from '@baas/common';
import type { PoolClient } from '@baas/common/postgres';
import type { ConsoleMemberRepository, MembershipChange } from '../ports';
import type { ConsoleInvitation, ConsoleMembershipRecord, ProjectMember } from '../domain/console/account';
import { normalizeEmail } from '../domain/users/user';
import type { PgAuthDatabase } from './postgres-database';

type MembershipRow = { account_id: string; project_id: string; role: ConsoleRole; created_at: Date };

type InvitationRow = {
  id: string;
  project_id: string;
  email: string;
  role: ConsoleRole;
  token_hash: string;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
};

function toMembership(r: MembershipRow): ConsoleMembershipRecord {
  return {
    accountId: r.account_id,
    projectId: trustedProjectId(r.project_id),
    role: r.role,
    createdAt: r.created_at,
  };
}

function toInvitation(r: InvitationRow): ConsoleInvitation {
  const i: ConsoleInvitation = {
    id: r.id,
    projectId: trustedProjectId(r.project_id),
    email: r.email,
    role: r.role,
    tokenHash: r.token_hash,
    invitedBy: r.invited_by,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
  if (r.accepted_at) i.acceptedAt = r.accepted_at;
  return i;
}

const MEMBERSHIP_COLUMNS = 'account_id, project_id, role, created_at';

/**
 * Locks a live project's row for the rest of the transaction (false when there is none): every
 * change to its members, and its deletion (which updates the row), take this lock, so they are
 * applied one after the other and each sees the others' result.
 */
async function lockLiveProject(tx: PoolClient, projectId: ProjectId): Promise<boolean> {
  const r = await tx.query(`SELECT 1 FROM projects WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, [
    projectId,
  ]);
  return r.rowCount === 1;
}

/** Memberships in `console_memberships`, invitations in `console_invitations` (migration 0006). */
export class PgConsoleMemberRepository implements ConsoleMemberRepository {
  constructor(private readonly db: PgAuthDatabase) {}

  async ofAccount(accountId: string): Promise<ConsoleMembershipRecord[]> {
    const { rows } = await this.db.run<MembershipRow>(
      `SELECT ${MEMBERSHIP_COLUMNS} FROM console_memberships WHERE account_id = $1 ORDER BY project_id DESC`,
      [accountId],
    );
    return rows.map(toMembership);
  }

  async ofAccounts(accountIds: readonly string[]): Promise<ConsoleMembershipRecord[]> {
    const { rows } = await this.db.run<MembershipRow>(
      `SELECT ${MEMBERSHIP_COLUMNS} FROM console_memberships WHERE account_id = ANY($1::text[])
        ORDER BY account_id, project_id DESC`,
      [accountIds],
    );
    return rows.map(toMembership);
  }

  async ofProject(projectId: ProjectId): Promise<ProjectMember[]> {
    const { rows } = await this.db.run<MembershipRow & { email: string }>(
      `SELECT m.account_id, m.project_id, m.role, m.created_at, a.email
         FROM console_memberships m JOIN console_accounts a ON a.id = m.account_id
        WHERE m.project_id = $1
        ORDER BY m.created_at, m.account_id`,
      [projectId],
    );
    return rows.map((r) => ({
      accountId: r.account_id,
      email: r.email,
      role: r.role,
      createdAt: r.created_at,
    }));
  }

  async change(
    projectId: ProjectId,
    plan: (members: readonly ConsoleMembershipRecord[]) => MembershipChange | null,
  ): Promise<boolean> {
    return this.db.transaction(async (tx, emit) => {
      if (!(await lockLiveProject(tx, projectId))) return false;
      const { rows } = await tx.query<MembershipRow>(
        `SELECT ${MEMBERSHIP_COLUMNS} FROM console_memberships WHERE project_id = $1`,
        [projectId],
      );
      const change = plan(rows.map(toMembership));
      if (!change) return true;
      if (change.role === null)
        await tx.query(`DELETE FROM console_memberships WHERE account_id = $1 AND project_id = $2`, [
          change.accountId,
          projectId,
        ]);
      else
        await tx.query(
          `INSERT INTO console_memberships (account_id, project_id, role, created_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (account_id, project_id) DO UPDATE SET role = EXCLUDED.role`,
          [change.accountId, projectId, change.role, new Date()],
        );
      await emit(change.events);
      return true;
    });
  }

  async insertInvitation(i: ConsoleInvitation, events: EventEnvelope[]): Promise<boolean> {
    return this.db.transaction(async (tx, emit) => {
      if (!(await lockLiveProject(tx, i.projectId))) return false;
      const emailLower = normalizeEmail(i.email);
      // The newest link wins: an older pending invitation of the same email stops working.
      await tx.query(
        `UPDATE console_invitations SET expires_at = $3
          WHERE project_id = $1 AND email_lower = $2 AND accepted_at IS NULL AND expires_at > $3`,
        [i.projectId, emailLower, i.createdAt],
      );
      await tx.query(
        `INSERT INTO console_invitations
           (id, project_id, email, email_lower, role, token_hash, invited_by, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [i.id, i.projectId, i.email, emailLower, i.role, i.tokenHash, i.invitedBy, i.createdAt, i.expiresAt],
      );
      await emit(events);
      return true;
    });
  }

  async findInvitation(tokenHash: string): Promise<ConsoleInvitation | null> {
    const { rows } = await this.db.run<InvitationRow>(
      `SELECT * FROM console_invitations WHERE token_hash = $1`,
      [tokenHash],
    );
    return rows[0] ? toInvitation(rows[0]) : null;
  }

  async pendingInvitations(projectId: ProjectId, now: Date): Promise<ConsoleInvitation[]> {
    const { rows } = await this.db.run<InvitationRow>(
      `SELECT * FROM console_invitations
        WHERE project_id = $1 AND accepted_at IS NULL AND expires_at > $2
        ORDER BY created_at DESC, id DESC`,
      [projectId, now],
    );
    return rows.map(toInvitation);
  }

  async claimInvitation(id: string, now: Date): Promise<boolean> {
    const { rowCount } = await this.db.run(
      `UPDATE console_invitations SET accepted_at = $2 WHERE id = $1 AND accepted_at IS NULL AND expires_at > $2`,
      [id, now],
    );
    return rowCount === 1;
  }

  async cancelInvitation(projectId: ProjectId, id: string, now: Date): Promise<boolean> {
    const { rowCount } = await this.db.run(
      `DELETE FROM console_invitations WHERE project_id = $1 AND id = $2 AND accepted_at IS NULL AND expires_at > $3`,
      [projectId, id, now],
    );
    return rowCount === 1;
  }

  async deleteProject(projectId: ProjectId): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ account_id: string }>(
        `DELETE FROM console_memberships WHERE project_id = $1 RETURNING account_id`,
        [projectId],
      );
      await tx.query(`DELETE FROM console_invitations WHERE project_id = $1`, [projectId]);
      return rows.map((r) => r.account_id);
    });
  }

  async purgeExpired(cutoff: Date, limit: number): Promise<number> {
    const { rowCount } = await this.db.run(
      `DELETE FROM console_invitations WHERE id IN (
         SELECT id FROM console_invitations WHERE expires_at < $1 ORDER BY expires_at LIMIT $2
         FOR UPDATE SKIP LOCKED)`,
      [cutoff, limit],
    );
    return rowCount;
  }
}
