import { z } from 'zod';
import { defineRoutes, envelope, hexId } from '@baas/common';

/* What the gateway answers itself (the OpenAPI document is generated from the registries). */

export const gatewayApiRoutes = defineRoutes([
  {
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI document',
    description: 'Public and cacheable (`ETag`, `Cache-Control: public, max-age=300`).',
    tag: 'Platform',
    service: 'gateway',
    security: 'public',
    responses: {
      200: { description: 'The OpenAPI 3.1 document.', schema: z.record(z.string(), z.unknown()) },
      304: { description: 'Not modified (`If-None-Match`).' },
    },
  },
  {
    method: 'get',
    path: '/api/admin/projects/{projectId}/usage',
    operationId: 'getProjectUsage',
    summary: "A project's usage: documents, stored bytes, mails this month",
    description:
      'Composed by the gateway from the data, storage and mail services, each asked for what it owns.',
    tag: 'Admin: usage',
    service: 'gateway',
    security: 'admin',
    params: z.object({ projectId: hexId.describe('The project id (24 hex).') }),
    responses: {
      200: {
        description: 'Usage against each limit.',
        schema: envelope(
          z.object({
            projectId: hexId,
            documents: z.object({ count: z.number().int(), limit: z.number().int() }),
            storage: z.object({ bytes: z.number().int(), limit: z.number().int() }),
            mail: z.object({
              month: z.string().describe('YYYY-MM (UTC)'),
              sent: z.number().int(),
              limit: z.number().int(),
            }),
          }),
        ),
        example: {
          success: true,
          data: {
            projectId: '665f1c2ab4d3e2f1a0b9c8d7',
            documents: { count: 42, limit: 100000 },
            storage: { bytes: 52431, limit: 104857600 },
            mail: { month: '2025-01', sent: 12, limit: 1000 },
          },
          message: 'Project usage',
        },
      },
    },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
]);
