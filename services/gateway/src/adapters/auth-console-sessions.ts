import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { CONSOLE_ROLES, isProjectIdString, type ConsoleSessionResolution } from '@baas/common';
import type { ConsoleSessions } from '../ports';
import { AuthInternalClient } from './auth-internal-client';

const resolution = z.object({
  sessionId: z.string(),
  accountId: z.string(),
  email: z.string(),
  platformAdmin: z.boolean(),
  memberships: z.array(
    z.object({ projectId: z.string().refine(isProjectIdString), role: z.enum(CONSOLE_ROLES) }),
  ),
  expiresAt: z.string().refine((s) => !Number.isNaN(Date.parse(s))),
});

/** Asks the auth service (`POST /internal/console/sessions/resolve`) whose live session a token is. */
export class AuthConsoleSessions implements ConsoleSessions {
  private readonly client: AuthInternalClient;

  constructor(authUrl: string, assertionPrivateKey: KeyObject) {
    this.client = new AuthInternalClient(authUrl, assertionPrivateKey);
  }

  async resolve(tokenHash: string, requestId: string): Promise<ConsoleSessionResolution | null> {
    const { status, text } = await this.client.call(
      'POST',
      '/internal/console/sessions/resolve',
      requestId,
      JSON.stringify({ tokenHash }),
    );
    // 401 CONSOLE_SESSION_INVALID: unknown, expired or revoked
    if (status === 401 || status === 404) return null;
    if (status !== 200) throw new Error(`auth service answered ${status}`);
    const body = JSON.parse(text) as unknown;
    // the resolution itself, as /internal/keys/resolve answers; the envelope's `data` is taken too
    const enveloped = typeof body === 'object' && body !== null && 'data' in body && !('sessionId' in body);
    const parsed = resolution.safeParse(enveloped ? body.data : body);
    if (!parsed.success) throw new Error('auth service answered a malformed console session');
    return parsed.data;
  }
}
