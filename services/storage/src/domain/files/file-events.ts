import {
  auditEvent,
  createEvent,
  type AuditSource,
  type EventCatalogue,
  type EventEnvelope,
  type ProjectId,
} from '@baas/common';

/** Who changes a project's files: a project key, or the platform admin (audited). */
export interface FileChangeContext {
  projectId: ProjectId;
  requestId: string;
  /** Set when the platform admin acts (admin API): the change is also an audit entry. */
  audit?: AuditSource;
}

/**
 * The events written with a file change: its `file.*` event and, when the platform admin made
 * it, the `audit.recorded` entry (so both exist exactly when the change does).
 */
export function fileEvents<T extends 'file.uploaded' | 'file.deleted'>(
  ctx: FileChangeContext,
  type: T,
  data: EventCatalogue[T],
): EventEnvelope[] {
  const events: EventEnvelope[] = [createEvent(type, ctx.projectId, data, { requestId: ctx.requestId })];
  if (ctx.audit)
    events.push(
      auditEvent(ctx.projectId, ctx.audit, type, { type: 'file', id: data.path }, { size: data.size }),
    );
  return events;
}

/** Where a stored file is publicly readable. */
export function publicUrl(deps: { publicBaseUrl: string }, path: string): string {
  return `${deps.publicBaseUrl}/${path}`;
}
