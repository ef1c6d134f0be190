import {
  AUDIT_ACTIONS,
  errors,
  isProjectIdString,
  trustedProjectId,
  type AuditAction,
  type AuditActor,
  type AuditTarget,
  type EventEnvelope,
  type ProjectId,
} from '@baas/common';

/** One admin action as the log keeps it: who, what, on what, in which project, when, from where. */
export interface AuditEntry {
  /** The id of the `audit.recorded` event (or of the direct write): recording twice is a no-op. */
  id: string;
  /** Null for platform-wide actions (signing key rotation). */
  projectId: ProjectId | null;
  at: Date;
  action: AuditAction;
  actor: AuditActor;
  target: AuditTarget;
  requestId: string | null;
  clientIp: string | null;
  details: Record<string, unknown> | null;
}

export function entryFromEvent(event: EventEnvelope<'audit.recorded'>): AuditEntry {
  const d = event.data;
  return {
    id: event.id,
    projectId: event.projectId,
    at: new Date(event.occurredAt),
    action: d.action,
    actor: d.actor,
    target: d.target,
    requestId: event.requestId,
    clientIp: d.clientIp,
    details: d.details ?? null,
  };
}

/** An entry in an API answer: the time as ISO-8601. */
export type AuditEntryView = Omit<AuditEntry, 'at'> & { at: string };

export function auditEntryView(e: AuditEntry): AuditEntryView {
  return { ...e, at: e.at.toISOString() };
}

/** Where a page ends: entries are ordered newest first by (at, id), so this position is total. */
export interface AuditPosition {
  at: Date;
  id: string;
}

/** The one query the log answers: newest first, optionally one project and one action. */
export interface AuditQuery {
  projectId?: ProjectId;
  action?: AuditAction;
  before?: AuditPosition;
  limit: number;
}

export const AUDIT_LIMIT_DEFAULT = 20;
export const AUDIT_LIMIT_MAX = 100;

function invalid(param: string, message: string): never {
  throw errors.validation('Invalid query parameter', [{ path: param, message }]);
}

export function encodeAuditCursor(p: AuditPosition): string {
  return Buffer.from(JSON.stringify([p.at.toISOString(), p.id]), 'utf8').toString('base64url');
}

function decodeAuditCursor(raw: string): AuditPosition {
  try {
    const v: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') {
      const at = new Date(v[0]);
      if (!Number.isNaN(at.getTime()) && v[1].length > 0 && v[1].length <= 64) return { at, id: v[1] };
    }
  } catch {
    /* answered below */
  }
  return invalid('cursor', 'is not a cursor this endpoint returned');
}

const PARAMS = new Set(['limit', 'cursor', 'action', 'projectId']);

/**
 * Parses `?limit=&cursor=&action=[&projectId=]` as the contract's lists do: `limit` a positive
 * integer clamped to 100, an empty cursor starts at the newest entry, unknown parameters are 400.
 */
export function parseAuditQuery(
  raw: Record<string, unknown>,
  opts: { projectIdParam: boolean },
): AuditQuery & { cursor: string } {
  for (const [k, v] of Object.entries(raw)) {
    if (!PARAMS.has(k) || (k === 'projectId' && !opts.projectIdParam)) invalid(k, 'is not a parameter here');
    if (typeof v !== 'string') invalid(k, 'given more than once or not a string');
  }
  const s = raw as Record<string, string | undefined>;
  let limit = AUDIT_LIMIT_DEFAULT;
  if (s.limit !== undefined) {
    const n = /^[1-9][0-9]{0,15}$/.test(s.limit) ? Number(s.limit) : NaN;
    if (!Number.isSafeInteger(n)) invalid('limit', 'must be a positive integer');
    limit = Math.min(n, AUDIT_LIMIT_MAX);
  }
  const q: AuditQuery & { cursor: string } = { limit, cursor: s.cursor ?? '' };
  if (q.cursor !== '') q.before = decodeAuditCursor(q.cursor);
  if (s.action !== undefined) {
    const action = AUDIT_ACTIONS.find((a) => a === s.action);
    if (!action) invalid('action', `must be one of ${AUDIT_ACTIONS.join(', ')}`);
    q.action = action;
  }
  if (s.projectId !== undefined) {
    if (!isProjectIdString(s.projectId)) invalid('projectId', 'must be a project id (24 hex)');
    q.projectId = trustedProjectId(s.projectId);
  }
  return q;
}
