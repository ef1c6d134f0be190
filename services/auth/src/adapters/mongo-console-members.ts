import { ObjectId, type Collection, type Db } from 'mongodb';
import {
  KeyedMutex,
  trustedProjectId,
  type ConsoleRole,
  type EventEnvelope,
  type ProjectId,
} from '@baas/common';
import {
  documentLockKey,
  isDuplicateKeyError,
  pushEvents,
  serializeWrites,
  withEvents,
  type OutboxFields,
} from '@baas/common/mongo';
import type { ConsoleMemberRepository, MembershipChange } from '../ports';
import type { ConsoleInvitation, ConsoleMembershipRecord, ProjectMember } from '../domain/console/account';
import { normalizeEmail } from '../domain/users/user';
import { LIVE, removeDocument, type AfterEventWrite, type MongoConsoleClaims } from './mongo-console-docs';

interface MembershipDoc extends OutboxFields {
  /** `<accountId>:<projectId>`: one membership per account and project, by the key alone. */
  _id: string;
  accountId: string;
  projectId: string;
  role: ConsoleRole;
  createdAt: Date;
}

interface InvitationDoc extends OutboxFields {
  _id: string;
  projectId: string;
  email: string;
  emailLower: string;
  role: ConsoleRole;
  tokenHash: string;
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt?: Date;
}

const membershipId = (accountId: string, projectId: string) => `${accountId}:${projectId}`;

function toMembership(d: MembershipDoc): ConsoleMembershipRecord {
  return {
    accountId: d.accountId,
    projectId: trustedProjectId(d.projectId),
    role: d.role,
    createdAt: d.createdAt,
  };
}

function toInvitation(d: InvitationDoc): ConsoleInvitation {
  const i: ConsoleInvitation = {
    id: d._id,
    projectId: trustedProjectId(d.projectId),
    email: d.email,
    role: d.role,
    tokenHash: d.tokenHash,
    invitedBy: d.invitedBy ?? null,
    createdAt: d.createdAt,
    expiresAt: d.expiresAt,
  };
  if (d.acceptedAt) i.acceptedAt = d.acceptedAt;
  return i;
}

const OUTBOX_HIDDEN = { _outbox: 0, _purgeAfterRelay: 0 } as const;

/**
 * Memberships (`console_memberships`) and invitations (`console_invitations`) on MongoDB/FerretDB.
 * Events ride in the document they describe. Changes to one project's members are serialised in
 * this process (KeyedMutex): across replicas the last-owner rule is checked but not enforced
 * atomically (FerretDB has no multi-document transactions; ARCHITECTURE.md, FerretDB).
 * Invitation use and cancellation are unique-key claims, so each happens once.
 */
export class MongoConsoleMemberRepository implements ConsoleMemberRepository {
  readonly memberships: Collection<MembershipDoc>;
  readonly invitations: Collection<InvitationDoc>;
  private readonly projects: Collection<{ _id: ObjectId; deletedAt?: Date }>;
  private readonly locks = new KeyedMutex();
  private readonly projectLocks = new KeyedMutex();
  /** What the outbox relay must use (its writes share the per-document locks). */
  readonly relayCollections: Collection[];
  private readonly relayMembership: (id: string) => void;
  private readonly relayInvitation: (id: string) => void;

  constructor(
    db: Db,
    private readonly claims: MongoConsoleClaims,
    afterWrite: AfterEventWrite = () => undefined,
  ) {
    this.memberships = db.collection<MembershipDoc>('console_memberships');
    this.invitations = db.collection<InvitationDoc>('console_invitations');
    this.projects = db.collection('projects');
    const relayMemberships = serializeWrites(this.memberships as unknown as Collection, this.locks);
    const relayInvitations = serializeWrites(this.invitations as unknown as Collection, this.locks);
    this.relayCollections = [relayMemberships, relayInvitations];
    this.relayMembership = (id) => afterWrite(relayMemberships, id);
    this.relayInvitation = (id) => afterWrite(relayInvitations, id);
  }

  async ensureIndexes(): Promise<void> {
    await this.memberships.createIndex({ projectId: 1 });
    await this.memberships.createIndex({ accountId: 1 });
    await this.invitations.createIndex({ tokenHash: 1 }, { unique: true });
    await this.invitations.createIndex({ projectId: 1, emailLower: 1 });
    await this.invitations.createIndex({ expiresAt: 1 });
  }

  private async projectLive(projectId: ProjectId): Promise<boolean> {
    const d = await this.projects.findOne(
      { _id: new ObjectId(projectId), deletedAt: { $exists: false } },
      { projection: { _id: 1 } },
    );
    return d !== null;
  }

  async ofAccount(accountId: string): Promise<ConsoleMembershipRecord[]> {
    const docs = await this.memberships
      .find({ accountId, ...LIVE }, { projection: OUTBOX_HIDDEN })
      .sort({ projectId: -1 })
      .toArray();
    return docs.map(toMembership);
  }

  async ofAccounts(accountIds: readonly string[]): Promise<ConsoleMembershipRecord[]> {
    const docs = await this.memberships
      .find({ accountId: { $in: [...accountIds] }, ...LIVE }, { projection: OUTBOX_HIDDEN })
      .sort({ accountId: 1, projectId: -1 })
      .toArray();
    return docs.map(toMembership);
  }

  async ofProject(projectId: ProjectId): Promise<ProjectMember[]> {
    const docs = await this.memberships
      .find({ projectId, ...LIVE }, { projection: OUTBOX_HIDDEN })
      .sort({ createdAt: 1, accountId: 1 })
      .toArray();
    if (docs.length === 0) return [];
    const accounts = await this.memberships.db
      .collection<{ _id: string; email: string }>('console_accounts')
      .find({ _id: { $in: docs.map((d) => d.accountId) }, ...LIVE }, { projection: { _id: 1, email: 1 } })
      .toArray();
    const emails = new Map(accounts.map((a) => [a._id, a.email]));
    return docs.flatMap((d) => {
      const email = emails.get(d.accountId);
      return email === undefined
        ? []
        : [{ accountId: d.accountId, email, role: d.role, createdAt: d.createdAt }];
    });
  }

  async change(
    projectId: ProjectId,
    plan: (members: readonly ConsoleMembershipRecord[]) => MembershipChange | null,
  ): Promise<boolean> {
    return this.projectLocks.run(projectId, async () => {
      if (!(await this.projectLive(projectId))) return false;
      const docs = await this.memberships
        .find({ projectId, ...LIVE }, { projection: OUTBOX_HIDDEN })
        .toArray();
      const change = plan(docs.map(toMembership));
      if (!change) return true;
      const id = membershipId(change.accountId, projectId);
      if (change.role === null) {
        await removeDocument(this.memberships, this.locks, id, change.events, this.relayMembership);
        return true;
      }
      const role = change.role;
      await this.locks.run(documentLockKey(this.memberships, id), async () => {
        const doc: MembershipDoc = {
          _id: id,
          accountId: change.accountId,
          projectId,
          role,
          createdAt: new Date(),
        };
        try {
          await this.memberships.insertOne(withEvents(doc, change.events));
        } catch (e) {
          if (!isDuplicateKeyError(e)) throw e;
          // A membership (or the tombstone of a removed one): it takes the new role and lives on.
          const existing = await this.memberships.findOne(
            { _id: id },
            { projection: { _purgeAfterRelay: 1 } },
          );
          const $set: Partial<MembershipDoc> = { role };
          if (existing?._purgeAfterRelay) $set.createdAt = doc.createdAt;
          await this.memberships.updateOne(
            { _id: id },
            pushEvents({ $set, $unset: { _purgeAfterRelay: '' } }, change.events),
          );
        }
      });
      if (change.events.length > 0) this.relayMembership(id);
      return true;
    });
  }

  async insertInvitation(i: ConsoleInvitation, events: EventEnvelope[]): Promise<boolean> {
    return this.projectLocks.run(i.projectId, async () => {
      if (!(await this.projectLive(i.projectId))) return false;
      const emailLower = normalizeEmail(i.email);
      // The newest link wins: an older pending invitation of the same email stops working.
      const older = await this.invitations
        .find(
          {
            projectId: i.projectId,
            emailLower,
            acceptedAt: { $exists: false },
            expiresAt: { $gt: i.createdAt },
          },
          { projection: { _id: 1 } },
        )
        .toArray();
      for (const o of older)
        await this.locks.run(documentLockKey(this.invitations, o._id), () =>
          this.invitations.updateOne({ _id: o._id }, { $set: { expiresAt: i.createdAt } }),
        );
      await this.invitations.insertOne(
        withEvents<InvitationDoc>(
          {
            _id: i.id,
            projectId: i.projectId,
            email: i.email,
            emailLower,
            role: i.role,
            tokenHash: i.tokenHash,
            invitedBy: i.invitedBy,
            createdAt: i.createdAt,
            expiresAt: i.expiresAt,
          },
          events,
        ),
      );
      if (events.length > 0) this.relayInvitation(i.id);
      return true;
    });
  }

  async findInvitation(tokenHash: string): Promise<ConsoleInvitation | null> {
    const d = await this.invitations.findOne({ tokenHash, ...LIVE }, { projection: OUTBOX_HIDDEN });
    return d ? toInvitation(d) : null;
  }

  async pendingInvitations(projectId: ProjectId, now: Date): Promise<ConsoleInvitation[]> {
    const docs = await this.invitations
      .find(
        { projectId, acceptedAt: { $exists: false }, expiresAt: { $gt: now }, ...LIVE },
        { projection: OUTBOX_HIDDEN },
      )
      .sort({ createdAt: -1, _id: -1 })
      .toArray();
    return docs.map(toInvitation);
  }

  /** The claim decides (one caller, whether it accepts or cancels); acceptedAt records it. */
  async claimInvitation(id: string, now: Date): Promise<boolean> {
    const d = await this.invitations.findOne({ _id: id, ...LIVE }, { projection: OUTBOX_HIDDEN });
    if (!d || d.acceptedAt || d.expiresAt <= now) return false;
    if (!(await this.claims.claim(`invitation:${id}`, d.expiresAt))) return false;
    await this.locks.run(documentLockKey(this.invitations, id), () =>
      this.invitations.updateOne({ _id: id }, { $set: { acceptedAt: now } }),
    );
    return true;
  }

  async cancelInvitation(projectId: ProjectId, id: string, now: Date): Promise<boolean> {
    const d = await this.invitations.findOne({ _id: id, projectId, ...LIVE }, { projection: OUTBOX_HIDDEN });
    if (!d || d.acceptedAt || d.expiresAt <= now) return false;
    if (!(await this.claims.claim(`invitation:${id}`, d.expiresAt))) return false;
    return removeDocument(this.invitations, this.locks, id, [], this.relayInvitation);
  }

  async deleteProject(projectId: ProjectId): Promise<string[]> {
    return this.projectLocks.run(projectId, async () => {
      const members = await this.memberships
        .find({ projectId, ...LIVE }, { projection: { _id: 1, accountId: 1 } })
        .toArray();
      for (const m of members)
        await removeDocument(this.memberships, this.locks, m._id, [], this.relayMembership);
      const invitations = await this.invitations
        .find({ projectId, ...LIVE }, { projection: { _id: 1 } })
        .toArray();
      for (const i of invitations)
        await removeDocument(this.invitations, this.locks, i._id, [], this.relayInvitation);
      return members.map((m) => m.accountId);
    });
  }

  /** Memberships of a deleted account (its invitations stay valid: they name an email). */
  async deleteAccount(accountId: string): Promise<void> {
    const members = await this.memberships.find({ accountId, ...LIVE }, { projection: { _id: 1 } }).toArray();
    for (const m of members)
      await removeDocument(this.memberships, this.locks, m._id, [], this.relayMembership);
  }

  async purgeExpired(cutoff: Date, limit: number): Promise<number> {
    const expired = await this.invitations
      .find({ expiresAt: { $lt: cutoff }, ...LIVE }, { projection: { _id: 1 } })
      .limit(limit)
      .toArray();
    let n = 0;
    for (const i of expired)
      if (await removeDocument(this.invitations, this.locks, i._id, [], this.relayInvitation)) n++;
    return n + (await this.claims.purgeExpired(cutoff, limit - n));
  }
}
