import type { KeyObject } from 'node:crypto';
import { Agent, request } from 'node:http';
import { signAssertion } from '@baas/common';
import { AssertionIssuer } from '../domain/assertion-issuer';

/**
 * Calls the auth service's internal API (keep-alive) with an assertion addressed to it, signed
 * with the gateway's private key like every other assertion (one reused for 30 s).
 */
export class AuthInternalClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private readonly issuer: AssertionIssuer;

  constructor(
    private readonly authUrl: string,
    assertionPrivateKey: KeyObject,
  ) {
    this.issuer = new AssertionIssuer((aud, claims) => signAssertion(assertionPrivateKey, aud, claims));
  }

  async call(
    method: string,
    path: string,
    requestId: string,
    body?: string,
  ): Promise<{ status: number; text: string }> {
    const assertion = await this.issuer.issue('auth', { admin: false });
    const url = new URL(path, this.authUrl);
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
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
  }
}
