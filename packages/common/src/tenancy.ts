/**
 * Tenancy is a type: repository methods take a ProjectId, and the only ways to make one are
 * parsing a verified gateway assertion or an id the platform itself generated.
 */
declare const projectIdBrand: unique symbol;
export type ProjectId = string & { readonly [projectIdBrand]: true };

export type KeyType = 'publishable' | 'secret';

const PROJECT_ID_RE = /^[a-f0-9]{24}$/;

export function isProjectIdString(value: unknown): value is string {
  return typeof value === 'string' && PROJECT_ID_RE.test(value);
}

/** Only for ids that come from a trusted source (a verified assertion, the platform's own DB). */
export function trustedProjectId(value: string): ProjectId {
  if (!isProjectIdString(value)) throw new Error(`not a project id: ${String(value)}`);
  return value as ProjectId;
}

/** What a service knows about the caller, taken only from the verified gateway assertion. */
export interface RequestContext {
  projectId: ProjectId;
  keyType: KeyType;
  requestId: string;
}
