import type { CacheInvalidator, IdGenerator, ProjectRepository } from '../../ports';
import type { SettingsDefaults } from './project';

export interface ProjectDeps {
  projects: ProjectRepository;
  invalidator: CacheInvalidator;
  ids: IdGenerator;
  defaults: SettingsDefaults;
}
