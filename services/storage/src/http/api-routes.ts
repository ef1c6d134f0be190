import { z } from 'zod';
import { defineRoutes, envelope, hexId } from '@baas/common';
import { deleteSchema } from './storage.routes';

/*
 * The storage service's routes as clients reach them through the gateway, from the schemas the
 * handlers validate with (the OpenAPI document is generated from this registry: `npm run openapi`).
 */

export const storageApiRoutes = defineRoutes([
  {
    method: 'post',
    path: '/api/storage/upload',
    operationId: 'uploadFile',
    summary: 'Upload a file',
    description: 'Every uploaded file is publicly readable at `url`; keep `path` to delete it.',
    tag: 'Storage',
    service: 'storage',
    security: 'keyOptionalUser',
    body: {
      contentType: 'multipart/form-data',
      schema: z.object({ file: z.string().describe('The file (binary part).').meta({ format: 'binary' }) }),
    },
    responses: {
      201: {
        description: 'Stored.',
        schema: z.object({ message: z.string(), url: z.string(), path: z.string(), provider: z.string() }),
        example: {
          message: 'File uploaded successfully',
          url: 'http://127.0.0.1:8080/files/665f1c2ab4d3e2f1a0b9c8d7/Jm3kQ9xZt1Lw0pR7yV2sBc.png',
          path: '665f1c2ab4d3e2f1a0b9c8d7/Jm3kQ9xZt1Lw0pR7yV2sBc.png',
          provider: 's3',
        },
      },
    },
    errors: {
      400: ['FILE_REQUIRED', 'MALFORMED_MULTIPART', 'UPLOAD_ABORTED'],
      403: ['QUOTA_EXCEEDED'],
      413: ['PAYLOAD_TOO_LARGE'],
    },
  },
  {
    method: 'delete',
    path: '/api/storage/file',
    operationId: 'deleteFile',
    summary: 'Delete a file',
    tag: 'Storage',
    service: 'storage',
    security: 'keyOptionalUser',
    body: { schema: deleteSchema, example: { path: '665f1c2ab4d3e2f1a0b9c8d7/Jm3kQ9xZt1Lw0pR7yV2sBc.png' } },
    responses: {
      200: { description: 'Deleted.', schema: envelope(z.object({})) },
    },
    errors: { 400: ['INVALID_PATH'], 404: ['FILE_NOT_FOUND'] },
  },
  {
    method: 'get',
    path: '/files/{projectId}/{name}',
    operationId: 'getPublicFile',
    summary: 'Read an uploaded file (public URL)',
    tag: 'Storage',
    service: 'storage',
    security: 'public',
    params: z.object({ projectId: hexId, name: z.string() }),
    responses: {
      200: {
        description: 'The bytes, with the stored Content-Type.',
        contentType: 'application/octet-stream',
        schema: z.string().meta({ format: 'binary' }),
      },
    },
    errors: { 404: ['FILE_NOT_FOUND'] },
  },
  {
    method: 'get',
    path: '/api/admin/projects/{projectId}/storage/usage',
    operationId: 'getStorageUsage',
    summary: "A project's stored bytes against its quota",
    tag: 'Admin: usage',
    service: 'storage',
    security: 'admin',
    params: z.object({ projectId: hexId.describe('The project id (24 hex).') }),
    responses: {
      200: {
        description: 'Bytes stored (uploads in progress included) and the quota.',
        schema: envelope(z.object({ bytes: z.number().int(), limit: z.number().int() })),
        example: { success: true, data: { bytes: 52431, limit: 104857600 }, message: 'Storage usage' },
      },
    },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
]);
