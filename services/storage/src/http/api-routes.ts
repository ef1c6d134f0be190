import { z } from 'zod';
import { adminListRoute, defineRoutes, envelope, hexId } from '@baas/common';
import { deleteSchema } from './storage.routes';

/*
 * The storage service's routes as clients reach them through the gateway, from the schemas the
 * handlers validate with (the OpenAPI document is generated from this registry: `npm run openapi`).
 */

const projectIdParams = z.object({ projectId: hexId.describe('The project id (24 hex).') });
const uploadBody = {
  contentType: 'multipart/form-data',
  schema: z.object({ file: z.string().describe('The file (binary part).').meta({ format: 'binary' }) }),
};
const uploadAnswer = {
  description: 'Stored.',
  schema: z.object({ message: z.string(), url: z.string(), path: z.string(), provider: z.string() }),
  example: {
    message: 'File uploaded successfully',
    url: 'http://127.0.0.1:8080/files/665f1c2ab4d3e2f1a0b9c8d7/Jm3kQ9xZt1Lw0pR7yV2sBc.png',
    path: '665f1c2ab4d3e2f1a0b9c8d7/Jm3kQ9xZt1Lw0pR7yV2sBc.png',
    provider: 's3',
  },
};
const uploadErrors = {
  400: ['FILE_REQUIRED', 'MALFORMED_MULTIPART', 'UPLOAD_ABORTED'],
  403: ['QUOTA_EXCEEDED'],
  413: ['PAYLOAD_TOO_LARGE'],
};
const fileView = z.object({
  name: z.string().describe('The generated name, the last segment of `path`.'),
  path: z.string(),
  originalName: z.string().describe("The client's file name, sanitised."),
  size: z.number().int(),
  contentType: z.string(),
  createdAt: z.string().describe('ISO-8601 date-time'),
  url: z.string().describe('The public URL (no key needed).'),
});

const exampleFile = {
  name: 'Jm3kQ9xZt1Lw0pR7yV2sBc.png',
  path: '665f1c2ab4d3e2f1a0b9c8d7/Jm3kQ9xZt1Lw0pR7yV2sBc.png',
  originalName: 'photo.png',
  size: 52431,
  contentType: 'image/png',
  createdAt: '2025-01-05T10:00:00.000Z',
  url: 'http://127.0.0.1:8080/files/665f1c2ab4d3e2f1a0b9c8d7/Jm3kQ9xZt1Lw0pR7yV2sBc.png',
};

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
    body: uploadBody,
    responses: { 201: uploadAnswer },
    errors: uploadErrors,
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
        description: 'The bytes, with the Content-Type stored at upload (any media type).',
        contentType: '*/*',
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
    params: projectIdParams,
    responses: {
      200: {
        description: 'Bytes stored (uploads in progress included) and the quota.',
        schema: envelope(z.object({ bytes: z.number().int(), limit: z.number().int() })),
        example: { success: true, data: { bytes: 52431, limit: 104857600 }, message: 'Storage usage' },
      },
    },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
  adminListRoute({
    path: '/api/admin/projects/{projectId}/files',
    operationId: 'adminListFiles',
    summary: "List a project's files",
    description: 'Newest first, by cursor. Uploads still in progress are not listed.',
    tag: 'Admin: files',
    service: 'storage',
    params: projectIdParams,
    item: fileView,
    example: { item: exampleFile, message: 'Files' },
  }),
  {
    method: 'post',
    path: '/api/admin/projects/{projectId}/files',
    operationId: 'adminUploadFile',
    summary: 'Upload a file to a project',
    description:
      'As `POST /api/storage/upload` (same size limit and project quota); recorded in the audit log.',
    tag: 'Admin: files',
    service: 'storage',
    security: 'admin',
    params: projectIdParams,
    body: uploadBody,
    responses: { 201: uploadAnswer },
    errors: { ...uploadErrors, 404: ['PROJECT_NOT_FOUND'] },
  },
  {
    method: 'delete',
    path: '/api/admin/projects/{projectId}/files/{name}',
    operationId: 'adminDeleteFile',
    summary: "Delete a project's file",
    description: 'Permanently; recorded in the audit log.',
    tag: 'Admin: files',
    service: 'storage',
    security: 'admin',
    params: projectIdParams.extend({ name: z.string().describe('The file name (`name` of the list).') }),
    responses: {
      200: { description: 'Deleted.', schema: envelope(z.object({ path: z.string() })) },
    },
    errors: { 400: ['INVALID_PATH'], 404: ['PROJECT_NOT_FOUND', 'FILE_NOT_FOUND'] },
  },
]);
