import { errors, type AuditSource, type KeyType, type ProjectId } from '@baas/common';
import type { DataDeps } from '../../ports';
import { MATCH_ALL, eq, type Condition } from './query';
import type { CollectionDef } from '../collections/collection';

/** Who is calling, from the verified gateway assertion plus the raw Bearer token, if any. */
export interface Caller {
  projectId: ProjectId;
  keyType: KeyType;
  requestId: string;
  bearer: string | undefined;
  documentQuota: number;
  /** Set when the platform admin acts (admin API): each write is also an audit entry. */
  audit?: AuditSource;
}

/** A write is either unrestricted (secret key) or limited to the documents of one end user. */
export type WriteAccess = { kind: 'secret' } | { kind: 'owner'; userId: string; ownerField: string };

const verified = new WeakMap<Caller, Promise<string>>();

/** The token's user, verified once per request. */
function userId(deps: DataDeps, caller: Caller): Promise<string> {
  if (!caller.bearer)
    return Promise.reject(errors.unauthorized('TOKEN_REQUIRED', 'A Bearer access token is required'));
  let p = verified.get(caller);
  if (!p) {
    p = deps.tokens.verify(caller.bearer, caller.projectId).then((u) => u.userId);
    verified.set(caller, p);
  }
  return p;
}

/**
 * A token that is sent must be valid, whether the request needs one or not (docs/api.md): an
 * ended session, or another project's user, is a 401 even with the secret key or on a collection
 * without RLS, rather than a request served as if no token had come. Verified once per request.
 */
export async function checkSentToken(deps: DataDeps, caller: Caller): Promise<void> {
  if (caller.bearer !== undefined) await userId(deps, caller);
}

/**
 * The spec's write-access matrix: secret key always; publishable key only on an RLS collection
 * with a valid Bearer token (403 without RLS, 401 without a valid token).
 */
export async function writeAccess(deps: DataDeps, caller: Caller, def: CollectionDef): Promise<WriteAccess> {
  await checkSentToken(deps, caller);
  if (caller.keyType === 'secret') return { kind: 'secret' };
  if (!def.rls.enabled)
    throw errors.forbidden('RLS_REQUIRED', 'Publishable keys can only write to collections with RLS enabled');
  return { kind: 'owner', userId: await userId(deps, caller), ownerField: def.rls.ownerField };
}

/**
 * What the caller may read, as a filter ANDed with everything else: private mode with a
 * publishable key sees only the token user's documents (401 without a token).
 */
export async function readScope(deps: DataDeps, caller: Caller, def: CollectionDef): Promise<Condition> {
  await checkSentToken(deps, caller);
  if (caller.keyType === 'secret' || !def.rls.enabled || def.rls.mode === 'public-read') return MATCH_ALL;
  return eq(def.rls.ownerField, await userId(deps, caller));
}
