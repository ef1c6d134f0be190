import type { CacheInvalidator, ConsoleMemberRepository, IdGenerator, ProjectRepository } from '../../ports';
import type { SettingsDefaults } from './project';

export interface ProjectDeps {
  projects: ProjectRepository;
  invalidator: CacheInvalidator;
  ids: IdGenerator;
  defaults: SettingsDefaults;
  /** Console memberships and invitations, which go with a deleted project. */
  members: Pick<ConsoleMemberRepository, 'deleteProject'>;
}
