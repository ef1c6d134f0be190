import type { ServiceName } from '@baas/common';
import { sendJson, type Exchange } from './exchange';
import type { Upstream } from './upstream';

/** The services that own a project's usage, and the path of each one's own usage endpoint. */
const PARTS = [
  ['data', 'data/usage'],
  ['storage', 'storage/usage'],
  ['mail', 'mail/usage'],
] as const satisfies ReadonlyArray<readonly [ServiceName, string]>;

type Json = Record<string, unknown>;

function dataOf(body: unknown): Json {
  if (typeof body !== 'object' || body === null) return {};
  const b = body as Json;
  // data and storage answer `{ success, data, message }`; mail's older endpoint answers bare.
  return typeof b.data === 'object' && b.data !== null ? (b.data as Json) : b;
}

/**
 * GET /api/admin/projects/:projectId/usage: documents (data), stored bytes (storage) and mails
 * this month (mail), each asked of the service that owns it, in parallel. No service reads
 * another's database; the first failure (in that order) is the answer.
 */
export async function answerProjectUsage(
  ex: Exchange,
  upstreams: ReadonlyMap<ServiceName, Upstream>,
  issue: (service: ServiceName) => Promise<string>,
): Promise<void> {
  const projectId = ex.project?.projectId ?? '';
  const answers = await Promise.all(
    PARTS.map(async ([service, sub]) => {
      const upstream = upstreams.get(service);
      if (!upstream) throw new Error(`no upstream for ${service}`);
      return upstream.getJson(ex, `/api/admin/projects/${projectId}/${sub}`, await issue(service));
    }),
  );
  const failed = answers.find((a) => a.status >= 400);
  if (failed) return sendJson(ex.res, failed.status, failed.body);
  const [data, storage, mail] = answers.map((a) => dataOf(a.body));
  sendJson(ex.res, 200, {
    success: true,
    data: {
      projectId,
      documents: { count: data?.documents, limit: data?.limit },
      storage: { bytes: storage?.bytes, limit: storage?.limit },
      mail: { month: mail?.month, sent: mail?.monthlyUsage, limit: mail?.monthlyLimit },
    },
    message: 'Project usage',
  });
}
