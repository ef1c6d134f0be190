import { z } from 'zod';
import { defineRoutes, envelope, hexId, type ApiRoute } from '@baas/common';
import { collectionSchemaSchema, registerBodySchema, rlsSchema } from '../domain/collections/collection';

/*
 * The data service's routes as clients reach them through the gateway, from the schemas the
 * handlers validate with (the OpenAPI document is generated from this registry: `npm run openapi`).
 */

const iso = z.string().describe('ISO-8601 date-time');
const collectionParams = z.object({
  collectionName: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/)
    .describe('A registered collection (never `users`).'),
});
const documentParams = collectionParams.extend({ id: hexId.describe('The document id (24 hex).') });
const projectIdParams = z.object({ projectId: hexId.describe('The project id (24 hex).') });

const documentView = z
  .object({ _id: hexId, isDeleted: z.boolean(), deletedAt: iso.nullable(), createdAt: iso, updatedAt: iso })
  .catchall(z.unknown());
const exampleDocument = {
  _id: '665f1c2ab4d3e2f1a0b9c8f0',
  title: 'Hello',
  userId: '665f1c2ab4d3e2f1a0b9c8e1',
  isDeleted: false,
  deletedAt: null,
  createdAt: '2025-01-05T10:00:00.000Z',
  updatedAt: '2025-01-05T10:00:00.000Z',
};
const includeDeleted = z
  .enum(['true', 'false'])
  .optional()
  .describe('`true`: documents in the trash count too.');

/**
 * The list's own parameters (parsed by `parseListQuery`, which applies these rules); every other
 * parameter is a filter: `field=value`, `field_gt`, `_lt`, `_ne`, `_in` (comma-separated), `_regex`.
 */
const listQuery = z.object({
  page: z
    .string()
    .regex(/^[1-9][0-9]*$/)
    .optional()
    .describe('Page number (1 when absent).'),
  limit: z
    .string()
    .regex(/^[1-9][0-9]*$/)
    .optional()
    .describe('Page size: 20 when absent, clamped to 100.'),
  cursor: z.string().optional().describe('Selects cursor pagination; empty starts at the beginning.'),
  sort: z
    .string()
    .optional()
    .describe('Up to 5 comma-separated fields, `-` for descending (newest first when absent).'),
  include_deleted: includeDeleted,
});
const listAnswer = envelope(
  z.object({
    items: z.array(documentView),
    total: z.number().int(),
    page: z.number().int().optional(),
    cursor: z.string().optional(),
    nextCursor: z.string().nullable(),
    limit: z.number().int(),
  }),
);
const documentBody = z.record(z.string(), z.unknown());
const collectionView = z.object({
  name: z.string(),
  schema: collectionSchemaSchema.nullable(),
  rls: rlsSchema,
  createdAt: iso,
  updatedAt: iso,
});
const accessErrors = {
  401: ['TOKEN_REQUIRED'],
  403: ['USERS_COLLECTION_RESERVED'],
  404: ['COLLECTION_NOT_FOUND'],
  504: ['QUERY_TIMEOUT'],
} as const;
/** A query the store refuses (an invalid pattern, say; `queryError` in the adapters): a 400. */
const storeRefusals = ['QUERY_FAILED', 'UNSUPPORTED_BY_DATABASE'] as const;

const publicDocumentRoutes: ApiRoute[] = [
  {
    method: 'get',
    path: '/api/data/{collectionName}',
    operationId: 'listDocuments',
    summary: 'List documents',
    description:
      'Page or cursor pagination. Any other query parameter filters: `field=value` (exact, coerced by the schema), `field_gt`, `field_lt`, `field_ne`, `field_in` (comma-separated, at most 100), `field_regex` (at most 100 characters).',
    tag: 'Data',
    service: 'data',
    security: 'keyOptionalUser',
    params: collectionParams,
    query: listQuery,
    responses: {
      200: {
        description: 'One page.',
        schema: listAnswer,
        example: {
          success: true,
          data: { items: [exampleDocument], total: 1, page: 1, nextCursor: null, limit: 20 },
          message: 'Documents retrieved',
        },
      },
    },
    errors: {
      ...accessErrors,
      400: ['INVALID_CURSOR', 'CURSOR_MISMATCH', 'UNSUPPORTED_REGEX', ...storeRefusals],
    },
  },
  {
    method: 'post',
    path: '/api/data/{collectionName}',
    operationId: 'insertDocument',
    summary: 'Insert a document',
    description:
      'A publishable key writes only with RLS and a user token; the owner field is set to the caller.',
    tag: 'Data',
    service: 'data',
    security: 'keyOptionalUser',
    params: collectionParams,
    body: { schema: documentBody, example: { title: 'Hello', tags: ['a', 'b'] } },
    responses: {
      201: { description: 'The stored document.', schema: documentView, example: exampleDocument },
    },
    errors: {
      ...accessErrors,
      400: ['DUPLICATE_VALUE', 'INVALID_BODY'],
      403: ['USERS_COLLECTION_RESERVED', 'RLS_REQUIRED', 'OWNER_MISMATCH', 'QUOTA_EXCEEDED'],
    },
  },
  {
    method: 'post',
    path: '/api/data/{collectionName}/aggregate',
    operationId: 'aggregate',
    summary: 'Run an aggregation pipeline',
    description:
      'MongoDB pipeline stages (at most 20, sub-pipelines included; 64 KB); `$lookup`/`$unionWith` only to registered collections of the project; RLS and trash filters are applied to what each stage reads.',
    tag: 'Data',
    service: 'data',
    security: 'keyOptionalUser',
    params: collectionParams,
    query: z.object({ include_deleted: includeDeleted }),
    body: {
      schema: z.object({ pipeline: z.array(z.record(z.string(), z.unknown())) }),
      example: { pipeline: [{ $match: { status: 'open' } }, { $group: { _id: '$owner', n: { $sum: 1 } } }] },
    },
    responses: {
      200: {
        description: 'At most 1000 rows.',
        schema: envelope(z.array(z.record(z.string(), z.unknown()))),
      },
    },
    errors: {
      ...accessErrors,
      // validate-pipeline.ts, the pipeline engine's bounds (budget.ts), the store's refusals
      400: [
        'INVALID_PIPELINE',
        'BLOCKED_OPERATOR',
        'BLOCKED_STAGE',
        'UNKNOWN_STAGE',
        'CROSS_DATABASE_ACCESS',
        'LOOKUP_FORBIDDEN',
        'PIPELINE_TOO_DEEP',
        'PIPELINE_TOO_LONG',
        'UNSUPPORTED_STAGE',
        'AGGREGATION_TOO_COSTLY',
        ...storeRefusals,
      ],
      413: ['PAYLOAD_TOO_LARGE'],
    },
  },
  {
    method: 'get',
    path: '/api/data/{collectionName}/{id}',
    operationId: 'getDocument',
    summary: 'Get a document',
    tag: 'Data',
    service: 'data',
    security: 'keyOptionalUser',
    params: documentParams,
    query: z.object({ include_deleted: includeDeleted }),
    responses: { 200: { description: 'The document.', schema: documentView, example: exampleDocument } },
    errors: { ...accessErrors, 404: ['COLLECTION_NOT_FOUND', 'DOCUMENT_NOT_FOUND'] },
  },
  ...(['put', 'patch'] as const).map((method) => ({
    method,
    path: '/api/data/{collectionName}/{id}',
    operationId: method === 'put' ? 'updateDocument' : 'patchDocument',
    summary: method === 'put' ? 'Update a document' : 'Update a document (same as PUT)',
    description: 'Sets the given fields (dot notation reaches nested keys); the owner field is immutable.',
    tag: 'Data',
    service: 'data' as const,
    security: 'keyOptionalUser' as const,
    params: documentParams,
    body: { schema: documentBody, example: { 'meta.views': 10 } },
    responses: { 200: { description: 'The updated document.', schema: envelope(documentView) } },
    errors: {
      ...accessErrors,
      400: ['DUPLICATE_VALUE', 'INVALID_BODY'],
      403: ['USERS_COLLECTION_RESERVED', 'RLS_REQUIRED', 'NOT_DOCUMENT_OWNER', 'OWNER_FIELD_IMMUTABLE'],
      404: ['COLLECTION_NOT_FOUND', 'DOCUMENT_NOT_FOUND'],
    },
  })),
  {
    method: 'delete',
    path: '/api/data/{collectionName}/{id}',
    operationId: 'trashDocument',
    summary: 'Move a document to the trash',
    tag: 'Data',
    service: 'data',
    security: 'keyOptionalUser',
    params: documentParams,
    responses: { 200: { description: 'In the trash.', schema: envelope(z.object({ id: hexId })) } },
    errors: {
      ...accessErrors,
      403: ['USERS_COLLECTION_RESERVED', 'RLS_REQUIRED', 'NOT_DOCUMENT_OWNER'],
      404: ['COLLECTION_NOT_FOUND', 'DOCUMENT_NOT_FOUND'],
    },
  },
  {
    method: 'post',
    path: '/api/data/{collectionName}/{id}/restore',
    operationId: 'restoreDocument',
    summary: 'Restore a document from the trash',
    tag: 'Data',
    service: 'data',
    security: 'secretKey',
    params: documentParams,
    responses: {
      200: { description: 'Restored (or was not in the trash).', schema: envelope(documentView) },
    },
    errors: { ...accessErrors, 404: ['COLLECTION_NOT_FOUND', 'DOCUMENT_NOT_FOUND'] },
  },
];

/** Codes only a publishable key meets (RLS, owners): the admin acts as the secret key. */
const KEY_ONLY_CODES = new Set(['TOKEN_REQUIRED', 'RLS_REQUIRED', 'OWNER_MISMATCH', 'NOT_DOCUMENT_OWNER']);

/**
 * The same document routes under the admin API (`documents` segment): the same handlers and
 * schemas, acting as the project's secret key (no RLS), audited; aggregation stays public only.
 */
const adminDocumentRoutes: ApiRoute[] = publicDocumentRoutes
  .filter((r) => r.operationId !== 'aggregate')
  .map((r) => {
    const errors: Partial<Record<number, readonly string[]>> = {};
    for (const [status, codes] of Object.entries(r.errors ?? {})) {
      const kept = (codes ?? []).filter((c) => !KEY_ONLY_CODES.has(c));
      if (kept.length > 0) errors[Number(status)] = kept;
    }
    errors[404] = ['PROJECT_NOT_FOUND', ...(errors[404] ?? [])];
    return {
      ...r,
      path: r.path.replace('/api/data/', '/api/admin/projects/{projectId}/documents/'),
      operationId: `admin${r.operationId.charAt(0).toUpperCase()}${r.operationId.slice(1)}`,
      summary: `${r.summary} (as the admin)`,
      description: [
        // What a publishable key may do does not apply here.
        r.description?.includes('ublishable') ? undefined : r.description,
        "Acts with the project's secret key's rights: row-level security does not apply; schema, unique fields, quota, trash and events do. Writes are recorded in the audit log.",
      ]
        .filter(Boolean)
        .join(' '),
      tag: 'Admin: documents',
      security: 'admin' as const,
      params: projectIdParams.extend(r.params?.shape ?? {}),
      errors,
    };
  });

export const dataApiRoutes = defineRoutes([
  ...publicDocumentRoutes,
  ...adminDocumentRoutes,
  // ---- admin ----
  {
    method: 'get',
    path: '/api/admin/projects/{projectId}/collections',
    operationId: 'listCollections',
    summary: "List a project's collections",
    tag: 'Admin: collections',
    service: 'data',
    security: 'admin',
    params: projectIdParams,
    responses: { 200: { description: 'Every registered collection.', schema: z.array(collectionView) } },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
  {
    method: 'get',
    path: '/api/admin/projects/{projectId}/collections/{name}',
    operationId: 'getCollection',
    summary: 'Get a collection',
    tag: 'Admin: collections',
    service: 'data',
    security: 'admin',
    params: projectIdParams.extend({ name: z.string() }),
    responses: { 200: { description: 'The collection.', schema: collectionView } },
    errors: { 404: ['PROJECT_NOT_FOUND', 'COLLECTION_NOT_FOUND'] },
  },
  {
    method: 'put',
    path: '/api/admin/projects/{projectId}/collections/{name}',
    operationId: 'putCollection',
    summary: 'Register or replace a collection',
    description:
      'An omitted `rls` keeps the current setting; turning RLS off takes `rls: { enabled: false }`.',
    tag: 'Admin: collections',
    service: 'data',
    security: 'admin',
    params: projectIdParams.extend({ name: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/) }),
    body: {
      schema: registerBodySchema,
      example: {
        schema: { fields: [{ key: 'title', type: 'String', required: true }] },
        rls: { enabled: true, mode: 'private', ownerField: 'userId' },
      },
    },
    responses: {
      200: { description: 'Replaced.', schema: collectionView },
      201: { description: 'Registered.', schema: collectionView },
    },
    errors: {
      400: ['DUPLICATE_VALUE', 'RESERVED_COLLECTION_NAME', 'INVALID_COLLECTION_NAME'],
      404: ['PROJECT_NOT_FOUND'],
    },
  },
  {
    method: 'delete',
    path: '/api/admin/projects/{projectId}/collections/{name}',
    operationId: 'deleteCollection',
    summary: 'Delete a collection and its documents',
    tag: 'Admin: collections',
    service: 'data',
    security: 'admin',
    params: projectIdParams.extend({ name: z.string() }),
    responses: { 200: { description: 'Deleted.', schema: envelope(z.object({ name: z.string() })) } },
    errors: { 404: ['PROJECT_NOT_FOUND', 'COLLECTION_NOT_FOUND'] },
  },
  {
    method: 'get',
    path: '/api/admin/projects/{projectId}/data/usage',
    operationId: 'getDocumentUsage',
    summary: "A project's document count against its quota",
    tag: 'Admin: usage',
    service: 'data',
    security: 'admin',
    params: projectIdParams,
    responses: {
      200: {
        description: 'Documents held (trash included) and the quota.',
        schema: envelope(z.object({ documents: z.number().int(), limit: z.number().int() })),
        example: { success: true, data: { documents: 42, limit: 100000 }, message: 'Document usage' },
      },
    },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
]);
