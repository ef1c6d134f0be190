import {
  AUDIT_ACTIONS,
  errors,
  timeKeysetRequest,
  isProjectIdString,
  trustedProjectId,
  type AuditAction,
  type AuditActor,
  type AuditTarget,
  type EventEnvelope,
  type ProjectId,
  type TimeKeyset,
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
export type AuditPosition = TimeKeyset;

/** The one query the log answers: newest first, optionally one project and one action. */
export interface AuditQuery {
  projectId?: ProjectId;
  action?: AuditAction;
  before?: AuditPosition;
  limit: number;
}

function invalid(param: string, message: string): never {
  throw errors.validation('Invalid query parameter', [{ path: param, message }]);
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
  if (s.limit !== undefined && !/^[1-9][0-9]{0,15}$/.test(s.limit))
    invalid('limit', 'must be a positive integer');
  const q: AuditQuery & { cursor: string } = timeKeysetRequest(s);
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
