import type { KeyObject } from 'node:crypto';
import { trustedProjectId, type KeyType } from '@baas/common';
import type { ProjectDirectory, ResolvedProject } from '../ports';
import { AuthInternalClient } from './auth-internal-client';

interface WireResolved {
  projectId: string;
  keyType: KeyType | null;
  allowedOrigins: string[];
  settings: ResolvedProject['settings'];
}

/** Asks the auth service's internal API whose key or project it is. */
export class AuthProjectDirectory implements ProjectDirectory {
  private readonly client: AuthInternalClient;

  constructor(authUrl: string, assertionPrivateKey: KeyObject) {
    this.client = new AuthInternalClient(authUrl, assertionPrivateKey);
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
    const { status, text } = await this.client.call(method, path, requestId, body);
    if (status === 401 || status === 404) return null;
    if (status !== 200) throw new Error(`auth service answered ${status}`);
    const w = JSON.parse(text) as WireResolved;
    return { ...w, projectId: trustedProjectId(w.projectId) };
  }
}
