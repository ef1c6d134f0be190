import { ConfigError, generateAssertionKeyPair } from '@baas/common';
import { loadStorageConfig, S3_PUT_MAX_BYTES } from './config';

const base = {
  GATEWAY_ASSERTION_PUBLIC_KEY: generateAssertionKeyPair().publicKeyPem,
  DATABASE_URL: 'postgres://unused/baas_storage',
};
const s3 = { ...base, STORAGE_DRIVER: 's3', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' };

describe('storage config', () => {
  it('takes MAX_FILE_BYTES up to 5 GiB with the s3 driver (one PUT) and refuses one byte more', () => {
    expect(loadStorageConfig({ ...s3, MAX_FILE_BYTES: String(S3_PUT_MAX_BYTES) }).MAX_FILE_BYTES).toBe(
      S3_PUT_MAX_BYTES,
    );
    expect(() => loadStorageConfig({ ...s3, MAX_FILE_BYTES: String(S3_PUT_MAX_BYTES + 1) })).toThrow(
      /MAX_FILE_BYTES: at most 5368709120/,
    );
  });

  it('does not bound MAX_FILE_BYTES with the local driver', () => {
    const c = loadStorageConfig({
      ...base,
      STORAGE_DRIVER: 'local',
      MAX_FILE_BYTES: String(S3_PUT_MAX_BYTES + 1),
    });
    expect(c.MAX_FILE_BYTES).toBe(S3_PUT_MAX_BYTES + 1);
  });

  it('spools in the OS temp dir, up to 1 MiB in memory, unless told otherwise', () => {
    const c = loadStorageConfig(s3);
    expect(c.UPLOAD_SPOOL_MEMORY_BYTES).toBe(1048576);
    expect(typeof c.UPLOAD_SPOOL_DIR).toBe('string');
    expect(() => loadStorageConfig({ ...s3, UPLOAD_SPOOL_MEMORY_BYTES: '-1' })).toThrow(ConfigError);
  });
});
