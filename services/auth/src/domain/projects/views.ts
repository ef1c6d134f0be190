import type { Project, SettingsDefaults } from './project';
import { effectiveSettings } from './project';

/** The admin view of a project: keys only by prefix and creation time. */
export function projectView(p: Project, defaults: SettingsDefaults) {
  return {
    id: p.id,
    name: p.name,
    settings: effectiveSettings(p.settings, defaults),
    keys: {
      publishable: {
        prefix: p.keys.publishable.prefix,
        createdAt: p.keys.publishable.createdAt.toISOString(),
      },
      secret: { prefix: p.keys.secret.prefix, createdAt: p.keys.secret.createdAt.toISOString() },
    },
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}
