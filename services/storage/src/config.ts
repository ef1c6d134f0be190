import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { env, loadConfig, storeEnvShape } from '@baas/common';

/** The largest object one S3 PUT takes. */
export const S3_PUT_MAX_BYTES = 5 * 1024 ** 3;

export const storageConfigSchema = z
  .object({
    ...storeEnvShape,
    PORT: env.port(8083),
    /** The JWKS of end-user tokens (a Bearer token sent with a storage call is verified). */
    AUTH_URL: env.url('http://127.0.0.1:8081'),
    /** `local` is the embedded single-machine default; `npm run up` passes `s3`. */
    STORAGE_DRIVER: z.enum(['s3', 'local']).default('local'),
    STORAGE_LOCAL_DIR: env.string(path.resolve('data', 'files')),
    S3_ENDPOINT: env.url('http://127.0.0.1:7070'),
    S3_REGION: env.string('us-east-1'),
    S3_BUCKET: env.string('baas-files'),
    // No default credentials in code: required only with the s3 driver (checked below).
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    /**
     * With the s3 driver an upload is received whole before it is sent (with its length, in one
     * PUT): up to UPLOAD_SPOOL_MEMORY_BYTES in memory, larger ones in a file in UPLOAD_SPOOL_DIR.
     */
    UPLOAD_SPOOL_DIR: env.string(os.tmpdir()),
    UPLOAD_SPOOL_MEMORY_BYTES: env.int(1048576),
    PUBLIC_FILES_BASE_URL: env.url('http://127.0.0.1:8080/files').transform((u) => u.replace(/\/+$/, '')),
    MAX_FILE_BYTES: env.positiveInt(10485760),
    DEFAULT_STORAGE_QUOTA_BYTES: env.int(104857600),
    /** The orphan sweep's floor: nothing younger is deleted, whatever cutoff the janitor sends. */
    ORPHAN_FILE_GRACE_SECONDS: env.int(86400),
    /** Records and objects the orphan sweep deletes at most per janitor sweep. */
    ORPHAN_SWEEP_MAX_DELETIONS: env.positiveInt(100),
  })
  .superRefine((c, ctx) => {
    if (c.STORAGE_DRIVER !== 's3') return;
    // An upload goes to S3 in one PUT (adapters/s3-object-store.ts), which takes at most 5 GiB.
    if (c.MAX_FILE_BYTES > S3_PUT_MAX_BYTES)
      ctx.addIssue({
        code: 'custom',
        path: ['MAX_FILE_BYTES'],
        message: `at most ${S3_PUT_MAX_BYTES} (5 GiB, one S3 PUT) when STORAGE_DRIVER=s3`,
      });
    for (const k of ['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const) {
      if (!c[k]) ctx.addIssue({ code: 'custom', path: [k], message: 'required when STORAGE_DRIVER=s3' });
    }
  });

export type StorageConfig = Readonly<z.infer<typeof storageConfigSchema>>;

export const loadStorageConfig = (e: Record<string, string | undefined> = process.env): StorageConfig =>
  loadConfig(storageConfigSchema, e);
