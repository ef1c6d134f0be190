import client from 'prom-client';
import { METRIC_PREFIX, type Metrics } from '@baas/common';
import type { UploadObserver, UploadOutcome } from './ports';

const OUTCOMES: readonly UploadOutcome[] = ['stored', 'too_large', 'quota_exceeded', 'failed'];

/** Uploads by outcome and the bytes of the files stored. */
export function uploadMetrics(metrics: Metrics): UploadObserver {
  const registers = [metrics.registry];
  const uploads = new client.Counter({
    name: `${METRIC_PREFIX}storage_uploads_total`,
    help: 'Uploads by outcome: stored, too_large (MAX_FILE_BYTES), quota_exceeded, failed',
    labelNames: ['outcome'] as const,
    registers,
  });
  const bytes = new client.Counter({
    name: `${METRIC_PREFIX}storage_upload_bytes_total`,
    help: 'Bytes of the files stored by uploads',
    registers,
  });
  for (const outcome of OUTCOMES) uploads.inc({ outcome }, 0);
  bytes.inc(0);
  return {
    uploaded: (outcome, n) => {
      uploads.inc({ outcome });
      if (n > 0) bytes.inc(n);
    },
  };
}
