import { AsyncLocalStorage } from 'node:async_hooks';
import { context as otelContext, propagation } from '@opentelemetry/api';

/**
 * What the code running for one request (or one consumed event) knows without being told: its
 * request id and W3C trace context. Set by the HTTP bootstrap and by event consumers; read by
 * createEvent, so every event carries the trace of the request that caused it.
 */
export interface AmbientContext {
  requestId: string | null;
  traceparent?: string;
  /** The tenant, once known (the verified assertion, the event): log lines carry it. */
  projectId?: string;
}

const storage = new AsyncLocalStorage<AmbientContext>();

export function runWithContext<T>(ctx: AmbientContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentContext(): AmbientContext | undefined {
  return storage.getStore();
}

/** Records the tenant of the request being handled, for everything logged from here on. */
export function setContextProjectId(projectId: string): void {
  const ctx = storage.getStore();
  if (ctx) ctx.projectId = projectId;
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** A well-formed traceparent, or undefined. */
export function saneTraceparent(value: string | undefined): string | undefined {
  return value && TRACEPARENT.test(value) ? value : undefined;
}

/** The active span's traceparent when tracing is on, else the one the request came with. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(otelContext.active(), carrier);
  return saneTraceparent(carrier.traceparent) ?? currentContext()?.traceparent;
}
