import type { Collection, Db } from 'mongodb';
import { KeyedMutex, type EventEnvelope } from '@baas/common';
import {
  documentLockKey,
  isDuplicateKeyError,
  pushEvents,
  serializeWrites,
  type OutboxFields,
} from '@baas/common/mongo';
import { DuplicateConsoleEmailError, type ConsoleAccountRepository } from '../ports';
import type { ConsoleAccount, ConsoleResetCode } from '../domain/console/account';
import { normalizeEmail } from '../domain/users/user';
import { LIVE, removeDocument, type AfterEventWrite, type MongoConsoleClaims } from './mongo-console-docs';
import type { MongoConsoleMemberRepository } from './mongo-console-members';
import type { MongoConsoleSessionRepository } from './mongo-console-sessions';

interface AccountDoc extends OutboxFields {
  _id: string;
  email: string;
  emailLower: string;
  passwordHash?: string;
  platformAdmin: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** The live password-reset code (its event rides in this document's `_outbox`). */
  resetCode?: { tokenHash: string; createdAt: Date; expiresAt: Date };
}

function toAccount(d: AccountDoc): ConsoleAccount {
  return {
    id: d._id,
    email: d.email,
    passwordHash: d.passwordHash ?? '',
    platformAdmin: d.platformAdmin === true,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

const PROJECTION = { _outbox: 0, _purgeAfterRelay: 0 } as const;

/**
 * Console accounts in `console_accounts` (email unique by its normalized form), each with its
 * reset code. Single-document writes take the document's lock (FerretDB); using a reset code is a
 * unique-key claim, so it happens once across replicas too.
 */
export class MongoConsoleAccountRepository implements ConsoleAccountRepository {
  readonly coll: Collection<AccountDoc>;
  private readonly locks = new KeyedMutex();
  /** What the outbox relay must use for this collection (its writes share the document locks). */
  readonly relayCollection: Collection;

  constructor(
    db: Db,
    private readonly claims: MongoConsoleClaims,
    private readonly related: {
      members: MongoConsoleMemberRepository;
      sessions: MongoConsoleSessionRepository;
    },
    afterWrite: AfterEventWrite = () => undefined,
  ) {
    this.coll = db.collection<AccountDoc>('console_accounts');
    const relayCollection = serializeWrites(this.coll as unknown as Collection, this.locks);
    this.relayCollection = relayCollection;
    this.relay = (id) => afterWrite(relayCollection, id);
  }

  private readonly relay: (id: string) => void;

  private locked<T>(id: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(documentLockKey(this.coll, id), fn);
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ emailLower: 1 }, { unique: true });
    await this.coll.createIndex({ 'resetCode.tokenHash': 1 });
    await this.coll.createIndex({ 'resetCode.expiresAt': 1 });
  }

  async insert(a: ConsoleAccount): Promise<void> {
    try {
      await this.coll.insertOne({
        _id: a.id,
        email: a.email,
        emailLower: normalizeEmail(a.email),
        passwordHash: a.passwordHash,
        platformAdmin: a.platformAdmin,
        createdAt: a.createdAt,
        updatedAt: a.updatedAt,
      });
    } catch (e) {
      if (isDuplicateKeyError(e)) throw new DuplicateConsoleEmailError('email taken');
      throw e;
    }
  }

  async findById(id: string): Promise<ConsoleAccount | null> {
    const d = await this.coll.findOne({ _id: id, ...LIVE }, { projection: PROJECTION });
    return d ? toAccount(d) : null;
  }

  async findByEmail(email: string): Promise<ConsoleAccount | null> {
    const d = await this.coll.findOne(
      { emailLower: normalizeEmail(email), ...LIVE },
      { projection: PROJECTION },
    );
    return d ? toAccount(d) : null;
  }

  async list(opts: { limit: number; before?: string; emailContains?: string }): Promise<ConsoleAccount[]> {
    const filter: Record<string, unknown> = { ...LIVE };
    if (opts.before) filter._id = { $lt: opts.before };
    // A literal substring: every regex metacharacter of the search is escaped.
    if (opts.emailContains)
      filter.emailLower = { $regex: opts.emailContains.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') };
    const docs = await this.coll
      .find(filter, { projection: PROJECTION })
      .sort({ _id: -1 })
      .limit(opts.limit)
      .toArray();
    return docs.map(toAccount);
  }

  async setPlatformAdmin(id: string, platformAdmin: boolean, at: Date): Promise<ConsoleAccount | null> {
    const d = await this.locked(id, () =>
      this.coll.findOneAndUpdate(
        { _id: id, ...LIVE },
        { $set: { platformAdmin, updatedAt: at } },
        { returnDocument: 'after' },
      ),
    );
    return d ? toAccount(d) : null;
  }

  async replacePasswordHash(id: string, expectedHash: string, newHash: string, at: Date): Promise<boolean> {
    const r = await this.locked(id, () =>
      this.coll.updateOne(
        { _id: id, passwordHash: expectedHash, ...LIVE },
        { $set: { passwordHash: newHash, updatedAt: at } },
      ),
    );
    return r.matchedCount === 1;
  }

  /** Sessions first (they stop working at once), then memberships, then the account. */
  async delete(id: string): Promise<boolean> {
    if (!(await this.findById(id))) return false;
    await this.related.sessions.deleteAccount(id);
    await this.related.members.deleteAccount(id);
    // The email is freed at once (a new account may take it) while a tombstone waits for the relay.
    return removeDocument(this.coll, this.locks, id, [], this.relay, { emailLower: `deleted:${id}` });
  }

  async putResetCode(
    code: ConsoleResetCode,
    events: EventEnvelope[],
    notIssuedAfter: Date,
  ): Promise<boolean> {
    const resetCode = { tokenHash: code.tokenHash, createdAt: code.createdAt, expiresAt: code.expiresAt };
    const r = await this.locked(code.accountId, () =>
      this.coll.updateOne(
        {
          _id: code.accountId,
          ...LIVE,
          $or: [
            { 'resetCode.createdAt': { $exists: false } },
            { 'resetCode.createdAt': { $lte: notIssuedAfter } },
          ],
        },
        pushEvents({ $set: { resetCode } }, events),
      ),
    );
    if (r.matchedCount === 1 && events.length > 0) this.relay(code.accountId);
    return r.matchedCount === 1;
  }

  async findResetCode(tokenHash: string, now: Date): Promise<ConsoleResetCode | null> {
    const d = await this.coll.findOne(
      { 'resetCode.tokenHash': tokenHash, 'resetCode.expiresAt': { $gt: now }, ...LIVE },
      { projection: { _id: 1, resetCode: 1 } },
    );
    if (!d?.resetCode) return null;
    return { accountId: d._id, ...d.resetCode };
  }

  async consumeResetCode(
    accountId: string,
    tokenHash: string,
    newPasswordHash: string,
    now: Date,
  ): Promise<boolean> {
    const code = await this.findResetCode(tokenHash, now);
    if (!code || code.accountId !== accountId) return false;
    if (!(await this.claims.claim(`reset:${tokenHash}`, code.expiresAt))) return false;
    const r = await this.locked(accountId, () =>
      this.coll.updateOne(
        { _id: accountId, 'resetCode.tokenHash': tokenHash, ...LIVE },
        { $set: { passwordHash: newPasswordHash, updatedAt: now }, $unset: { resetCode: '' } },
      ),
    );
    return r.matchedCount === 1;
  }

  async purgeExpired(cutoff: Date, limit: number): Promise<number> {
    const expired = await this.coll
      .find({ 'resetCode.expiresAt': { $lt: cutoff } }, { projection: { _id: 1 } })
      .limit(limit)
      .toArray();
    for (const d of expired)
      await this.locked(d._id, () =>
        this.coll.updateOne(
          { _id: d._id, 'resetCode.expiresAt': { $lt: cutoff } },
          { $unset: { resetCode: '' } },
        ),
      );
    return expired.length;
  }
}
