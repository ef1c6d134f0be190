import { errors } from '@baas/common';
import { uploadOutcome } from './upload-file';

describe('uploadOutcome', () => {
  it('tells an upload over the size limit and one over the quota from other failures', () => {
    expect(uploadOutcome(errors.payloadTooLarge())).toBe('too_large');
    expect(uploadOutcome(errors.quotaExceeded())).toBe('quota_exceeded');
    expect(uploadOutcome(new Error('S3 unreachable'))).toBe('failed');
  });
});
