import type { KeyObject } from 'node:crypto';
import { Agent, request } from 'node:http';
import { signAssertion, trustedProjectId, type KeyType } from '@baas/common';
import { AssertionIssuer } from '../domain/assertion-issuer';
import type { ProjectDirectory, ResolvedProject } from '../ports';

interface WireResolved {
  projectId: string;
  keyType: KeyType | null;
  allowedOrigins: string[];
  settings: ResolvedProject['settings'];
}

/**
 * Calls the auth service's internal API (keep-alive) with an assertion addressed to it, signed
 * with the gateway's private key like every other assertion (one reused for 30 s).
 */
export class AuthProjectDirectory implements ProjectDirectory {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private readonly issuer: AssertionIssuer;

  constructor(
    private readonly authUrl: string,
    assertionPrivateKey: KeyObject,
  ) {
    this.issuer = new AssertionIssuer((aud, claims) => signAssertion(assertionPrivateKey, aud, claims));
  }

  async byKeyHash(keyHash: string, requestId: string): Promise<ResolvedProject | null> {
    return this.call('POST', '/internal/keys/resolve', requestId, JSON.stringify({ keyHash }));
  }

  async byId(projectId: string, requestId: string): Promise<ResolvedProject | null> {
    return this.call('GET', `/internal/projects/${encodeURIComponent(projectId)}`, requestId);
  }

  private async call(
    method: string,
    path: string,
    requestId: string,
    body?: string,
  ): Promise<ResolvedProject | null> {
    const assertion = await this.issuer.issue('auth', { admin: false });
    const url = new URL(path, this.authUrl);
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          agent: this.agent,
          timeout: 5000,
          headers: {
            'x-gateway-assertion': assertion,
            'x-request-id': requestId,
            ...(body
              ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
              : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('auth service timed out')));
      req.on('error', reject);
      req.end(body);
    });
    if (status === 401 || status === 404) return null;
    if (status !== 200) throw new Error(`auth service answered ${status}`);
    const w = JSON.parse(text) as WireResolved;
    return { ...w, projectId: trustedProjectId(w.projectId) };
  }
}
