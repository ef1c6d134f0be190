import { auditEvent, createEvent, errors, type AuditSource, type ProjectId } from '@baas/common';
import type { ProjectDeps } from './deps';
import { mergeSettings, type SettingsPatch } from './project';
import { projectView } from './views';

export interface UpdateProjectInput {
  id: ProjectId;
  name?: string;
  settings?: SettingsPatch;
  requestId: string;
  source: AuditSource;
}

/** Renames a project and/or merges settings; gateways drop their cached copy at once. */
export async function updateProject(deps: ProjectDeps, input: UpdateProjectInput) {
  const current = await deps.projects.findById(input.id);
  if (!current) throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
  const changed: string[] = [];
  const changes: { name?: string; settings?: typeof current.settings } = {};
  if (input.name !== undefined) {
    changes.name = input.name;
    changed.push('name');
  }
  if (input.settings !== undefined) {
    changes.settings = mergeSettings(current.settings, input.settings);
    changed.push(...Object.keys(input.settings).map((k) => `settings.${k}`));
  }
  const event = createEvent('project.updated', input.id, { changed }, { requestId: input.requestId });
  const audit = auditEvent(
    input.id,
    input.source,
    'project.updated',
    { type: 'project', id: input.id },
    { changed },
  );
  const updated = await deps.projects.update(input.id, changes, [event, audit]);
  if (!updated) throw errors.notFound('PROJECT_NOT_FOUND', 'Project not found');
  deps.invalidator.projectChanged(input.id);
  return projectView(updated, deps.defaults);
}
