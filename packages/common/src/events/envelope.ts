import { randomUUID } from 'node:crypto';
import type { ProjectId } from '../tenancy';
import { currentContext, currentTraceparent } from '../request-context';
import { EVENT_VERSIONS, type EventCatalogue, type EventType, type PlatformEventType } from './catalogue';

/** The events that belong to one project (all but the platform events). */
export type ProjectEventType = Exclude<EventType, PlatformEventType>;

/**
 * The project an event belongs to: null for a platform event (PlatformEventType), which belongs
 * to none. An envelope of any type may therefore carry null; a consumer's handler sees only the
 * types it subscribed to (JetStreamBus.consume types it so), and those of a project event say
 * ProjectId.
 */
export type EventProjectId<T extends EventType> = T extends PlatformEventType ? null : ProjectId;

export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  version: number;
  occurredAt: string;
  projectId: EventProjectId<T>;
  requestId: string | null;
  /** W3C traceparent of the request that caused the event, when there was one. */
  traceparent?: string;
  data: EventCatalogue[T];
}

type EventMeta = { requestId?: string | null; traceparent?: string };

/** An event of one project. */
export function createEvent<T extends ProjectEventType>(
  type: T,
  projectId: ProjectId,
  data: EventCatalogue[T],
  meta: EventMeta = {},
): EventEnvelope<T> {
  // T is a project event, so its projectId type is ProjectId (TypeScript cannot resolve that for a generic T).
  return envelope(type, projectId as EventProjectId<T>, data, meta);
}

/** A platform event: about no project (a console account's password reset), projectId null. */
export function createPlatformEvent<T extends PlatformEventType>(
  type: T,
  data: EventCatalogue[T],
  meta: EventMeta = {},
): EventEnvelope<T> {
  return envelope(type, null as EventProjectId<T>, data, meta);
}

function envelope<T extends EventType>(
  type: T,
  projectId: EventProjectId<T>,
  data: EventCatalogue[T],
  meta: EventMeta,
): EventEnvelope<T> {
  const e: EventEnvelope<T> = {
    id: randomUUID(),
    type,
    version: EVENT_VERSIONS[type],
    occurredAt: new Date().toISOString(),
    projectId,
    requestId: meta.requestId ?? currentContext()?.requestId ?? null,
    data,
  };
  // The trace of the request (or event) being handled, unless the caller names another.
  const traceparent = meta.traceparent ?? currentTraceparent();
  if (traceparent) e.traceparent = traceparent;
  return e;
}

export const EVENTS_STREAM = 'BAAS_EVENTS';
export const EVENTS_SUBJECT_PREFIX = 'baas.events';
export const DLQ_STREAM = 'BAAS_DLQ';
export const DLQ_SUBJECT_PREFIX = 'baas.dlq';
/** Core NATS subject for fast cache invalidation (keys rotated, project changed or deleted). */
export const INVALIDATION_SUBJECT = 'baas.cache.invalidate';

export function subjectFor(type: EventType): string {
  return `${EVENTS_SUBJECT_PREFIX}.${type}`;
}
