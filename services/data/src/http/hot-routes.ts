import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import {
  ASSERTION_HEADER,
  errors,
  serveLean,
  tracingEnabled,
  type AssertionCheck,
  type GatewayAssertion,
  type LeanExchange,
  type Logger,
  type Metrics,
} from '@baas/common';
import type { DataDeps } from '../ports';
import type { Caller } from '../domain/documents/access';
import { getDocument, listDocuments } from '../domain/documents/read-documents';
import { insertDocument } from '../domain/documents/insert-document';
import { callerFrom, queryPairs } from './caller';

/** The document body limit of data.routes.ts ('256kb' as body-parser reads it). */
export const DOCUMENT_BODY_LIMIT_BYTES = 256 * 1024;

const PREFIX = '/api/data/';
/** What body-parser would take as JSON in UTF-8 without reading a charset or an encoding. */
const PLAIN_JSON = /^application\/json(?:\s*;\s*charset=utf-8)?$/i;
/** body-parser's strict check: the first character that is not JSON whitespace. */
const FIRST_CHAR = /^[ \t\n\r]*([^ \t\n\r])/;

type HotRoute =
  | { kind: 'list'; name: string }
  | { kind: 'get'; name: string; id: string }
  | { kind: 'create'; name: string };

/** The metric label express gives each route (mount path + route pattern). */
const LABELS: Record<HotRoute['kind'], string> = {
  list: '/api/data/:collectionName',
  get: '/api/data/:collectionName/:id',
  create: '/api/data/:collectionName',
};

/**
 * Which hot route a request is, when it is plainly one: GET /api/data/:collection,
 * GET /api/data/:collection/:id, or POST /api/data/:collection with a JSON body in UTF-8 of
 * known length within the limit. Anything else — another method or path, a trailing slash, an
 * undecodable segment, a chunked, encoded or oversize body, another content type or charset —
 * is left to express, which answers it as before (413, 415, 400...).
 */
export function hotRoute(req: IncomingMessage): HotRoute | undefined {
  const url = req.url ?? '';
  if (!url.startsWith(PREFIX)) return undefined;
  const q = url.indexOf('?');
  const segments = (q < 0 ? url : url.slice(0, q)).slice(PREFIX.length).split('/');
  if (segments.length > 2 || segments.some((s) => s === '')) return undefined;
  let name: string;
  let id: string | undefined;
  try {
    name = decodeURIComponent(segments[0]!);
    id = segments[1] === undefined ? undefined : decodeURIComponent(segments[1]);
  } catch {
    return undefined;
  }
  if (req.method === 'GET') return id === undefined ? { kind: 'list', name } : { kind: 'get', name, id };
  if (req.method === 'POST' && id === undefined && plainJsonBody(req)) return { kind: 'create', name };
  return undefined;
}

function plainJsonBody(req: IncomingMessage): boolean {
  const h = req.headers;
  const length = h['content-length'];
  return (
    typeof h['content-type'] === 'string' &&
    PLAIN_JSON.test(h['content-type']) &&
    h['content-encoding'] === undefined &&
    h['transfer-encoding'] === undefined &&
    length !== undefined &&
    /^\d{1,7}$/.test(length) &&
    Number(length) <= DOCUMENT_BODY_LIMIT_BYTES
  );
}

/** The body, read as body-parser's strict JSON parser would (an empty body is `{}`). */
function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('error', () => reject(errors.badRequest('REQUEST_ABORTED', 'Request aborted')));
    req.once('end', () => {
      let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // iconv-lite drops a BOM
      if (text.length === 0) return resolve({});
      const first = FIRST_CHAR.exec(text)?.[1];
      if (first !== '{' && first !== '[') return reject(errors.malformedJson());
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(errors.malformedJson());
      }
    });
  });
}

export interface HotRoutesDeps {
  data: DataDeps;
  logger: Logger;
  metrics: Metrics;
  check: AssertionCheck;
}

/**
 * The data service's request listener: document list, read and create — most of what clients
 * send — are served by serveLean without express; everything else, and every request while
 * tracing is on (express's spans name the route), goes to `app`. Same use cases, same answers.
 */
export function withHotRoutes(app: RequestListener, deps: HotRoutesDeps): RequestListener {
  // In express's order: the assertion (middleware), the body (route's parser), then the caller.
  const caller = (ex: LeanExchange, assertion: GatewayAssertion): Caller =>
    callerFrom(assertion, ex.req, deps.data.limits.defaultDocumentQuota);
  const query = (ex: LeanExchange) => queryPairs(ex.req.url ?? '');
  const serve = async (route: HotRoute, ex: LeanExchange) => {
    const h = ex.req.headers[ASSERTION_HEADER];
    const assertion = await deps.check(Array.isArray(h) ? h[0] : h, ex.id);
    switch (route.kind) {
      case 'list': {
        const data = await listDocuments(deps.data, caller(ex, assertion), route.name, query(ex));
        return { status: 200, body: { success: true, data, message: 'Documents retrieved' } };
      }
      case 'get': {
        const who = caller(ex, assertion);
        const includeDeleted = query(ex).find(([k]) => k === 'include_deleted')?.[1];
        return { status: 200, body: await getDocument(deps.data, who, route.name, route.id, includeDeleted) };
      }
      case 'create': {
        const body = await readJson(ex.req);
        return {
          status: 201,
          body: await insertDocument(deps.data, caller(ex, assertion), route.name, body),
        };
      }
    }
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    const route = tracingEnabled() ? undefined : hotRoute(req);
    if (!route) {
      app(req, res);
      return;
    }
    serveLean(deps, req, res, LABELS[route.kind], (ex) => serve(route, ex));
  };
}
