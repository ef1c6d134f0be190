import type { ServerResponse } from 'node:http';
import { checkReadiness, type ReadinessCheck } from '@baas/common';
import { sendJson } from './exchange';

/** GET /readyz: 200 when every check passes, 503 while draining or when one fails. */
export async function readiness(
  res: ServerResponse,
  checks: ReadinessCheck[],
  draining: boolean,
): Promise<void> {
  if (draining) return sendJson(res, 503, { status: 'draining' });
  const report = await checkReadiness(checks);
  sendJson(res, report.status === 'ok' ? 200 : 503, report);
}
