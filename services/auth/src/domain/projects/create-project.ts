import { auditEvent, createEvent, type AuditSource } from '@baas/common';
import type { ProjectDeps } from './deps';
import { generateApiKey } from './api-keys';
import { effectiveSettings, mergeSettings, type Project, type SettingsPatch } from './project';

export interface CreateProjectInput {
  name: string;
  settings?: SettingsPatch;
  requestId: string;
  source: AuditSource;
}

/** Creates a project with a fresh key pair; the plaintext keys are returned once, here only. */
export async function createProject(deps: ProjectDeps, input: CreateProjectInput) {
  const pk = generateApiKey('publishable');
  const sk = generateApiKey('secret');
  const now = new Date();
  const project: Project = {
    id: deps.ids.projectId(),
    name: input.name,
    settings: mergeSettings({}, input.settings ?? {}),
    keys: { publishable: pk.stored, secret: sk.stored },
    createdAt: now,
    updatedAt: now,
  };
  const event = createEvent(
    'project.created',
    project.id,
    { name: project.name },
    { requestId: input.requestId },
  );
  const audit = auditEvent(project.id, input.source, 'project.created', { type: 'project', id: project.id });
  await deps.projects.insert(project, [event, audit]);
  return {
    id: project.id,
    name: project.name,
    publishableKey: pk.plaintext,
    secretKey: sk.plaintext,
    settings: effectiveSettings(project.settings, deps.defaults),
  };
}
