import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import {
  adminProjectContext,
  auditSource,
  bearerToken,
  MAX_QUERY_PARAMETERS,
  tenantOf,
  tooManyQueryParameters,
  type GatewayAssertion,
} from '@baas/common';
import type { Caller } from '../domain/documents/access';

export function callerOf(req: Request, defaultDocumentQuota: number): Caller {
  return callerFrom(req.assertion, req, defaultDocumentQuota);
}

/** A project key's caller, from the verified assertion and the request's Authorization header. */
export function callerFrom(
  assertion: GatewayAssertion | undefined,
  req: Pick<IncomingMessage, 'headers'>,
  defaultDocumentQuota: number,
): Caller {
  const t = tenantOf(assertion);
  return {
    projectId: t.projectId,
    keyType: t.keyType,
    requestId: t.requestId,
    bearer: bearerToken(req),
    documentQuota: t.settings.limits?.documents ?? defaultDocumentQuota,
  };
}

/**
 * The platform admin on `/api/admin/projects/:projectId/documents` acts as the project's secret
 * key would (RLS bypassed, quota and schema as ever); its writes are audited.
 */
export function adminCallerOf(req: Request, defaultDocumentQuota: number): Caller {
  const ctx = adminProjectContext(req, (req.params as Record<string, string | undefined>).projectId);
  return {
    projectId: ctx.projectId,
    keyType: 'secret',
    requestId: ctx.requestId,
    bearer: undefined,
    documentQuota: ctx.settings?.limits?.documents ?? defaultDocumentQuota,
    audit: auditSource(req),
  };
}

/**
 * The query string as raw pairs. The app's extended parser would turn `a[$ne]=x` into an
 * object; the data routes never look at req.query, so a key is only ever a literal string.
 */
export function rawQuery(req: Request): Array<[string, string]> {
  return queryPairs(req.originalUrl);
}

export function queryParam(req: Request, name: string): string | undefined {
  return rawQuery(req).find(([k]) => k === name)?.[1];
}

/**
 * The raw pairs of a URL's query string (`/path?a=1` or a request target), at most
 * MAX_QUERY_PARAMETERS of them, as every service's query parser allows (400 past it).
 */
export function queryPairs(url: string): Array<[string, string]> {
  const i = url.indexOf('?');
  if (i < 0) return [];
  const pairs = [...new URLSearchParams(url.slice(i + 1))];
  if (pairs.length > MAX_QUERY_PARAMETERS) throw tooManyQueryParameters();
  return pairs;
}
