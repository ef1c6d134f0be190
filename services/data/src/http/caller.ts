import type { Request } from 'express';
import { bearerToken, tenantContext } from '@baas/common';
import type { Caller } from '../domain/documents/access';

export function callerOf(req: Request, defaultDocumentQuota: number): Caller {
  const t = tenantContext(req);
  return {
    projectId: t.projectId,
    keyType: t.keyType,
    requestId: t.requestId,
    bearer: bearerToken(req),
    documentQuota: t.settings.limits?.documents ?? defaultDocumentQuota,
  };
}

/**
 * The query string as raw pairs. The app's extended parser would turn `a[$ne]=x` into an
 * object; the data routes never look at req.query, so a key is only ever a literal string.
 */
export function rawQuery(req: Request): Array<[string, string]> {
  const i = req.originalUrl.indexOf('?');
  return i < 0 ? [] : [...new URLSearchParams(req.originalUrl.slice(i + 1))];
}

export function queryParam(req: Request, name: string): string | undefined {
  return rawQuery(req).find(([k]) => k === name)?.[1];
}
