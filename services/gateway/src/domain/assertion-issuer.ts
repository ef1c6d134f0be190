import type { LRUCache } from 'lru-cache';
import { boundedLru, type AssertionClaims, type ServiceName } from '@baas/common';
import type { ResolvedProject } from '../ports';

export type Sign = (audience: ServiceName, claims: AssertionClaims) => Promise<string>;

/**
 * Assertions name the caller (project entry, key type, admin, console account, client address)
 * and the target service, not the request: one is signed per caller and audience and reused for
 * `reuseMs` (half its 60 s lifetime), so a request costs a cache lookup instead of a signature,
 * and the service verifies each token once. A project's cached entry is a new object after any
 * change to it (NATS invalidation, TTL), so changed settings get a fresh assertion at once.
 */
export class AssertionIssuer {
  private readonly issued: LRUCache<string, Promise<string>>;
  private readonly entryIds = new WeakMap<ResolvedProject, number>();
  private nextEntryId = 1;

  constructor(
    private readonly sign: Sign,
    reuseMs = 30_000,
    max = 20_000,
  ) {
    this.issued = boundedLru<string, Promise<string>>(max, { ttl: reuseMs });
  }

  issue(audience: ServiceName, claims: AssertionClaims, project?: ResolvedProject): Promise<string> {
    const acct = claims.account;
    // a console account's claims (and the scope of a project list) are part of what is asserted
    const who = acct
      ? `${acct.id}|${acct.platformAdmin ? 1 : 0}|${acct.email}|${claims.scope?.join(',') ?? '*'}`
      : '';
    const key = `${audience}|${project ? this.entryId(project) : 0}|${claims.admin ? 1 : 0}|${claims.keyType ?? ''}|${claims.clientIp ?? ''}|${who}`;
    const hit = this.issued.get(key);
    if (hit) return hit;
    const signed = this.sign(audience, claims);
    this.issued.set(key, signed);
    // a failed signature is not remembered
    signed.catch(() => this.issued.delete(key));
    return signed;
  }

  private entryId(project: ResolvedProject): number {
    let id = this.entryIds.get(project);
    if (id === undefined) {
      id = this.nextEntryId++;
      this.entryIds.set(project, id);
    }
    return id;
  }
}
