/** Project use cases: resolving, listing and creating projects (with their workflows). */
import { AppError, FieldErrors } from '@tix/kit';
import { PROJECT_SLUG_PATTERN } from '../shared/slugs.js';
import { UniqueViolation } from '../shared/unique-violation.js';
import { validateNewProject, type StatusDefinition } from './project-rules.js';
import type { ProjectRecord, ProjectStore } from './project-store.js';

export const PROJECT_NOT_FOUND = 'Project not found';

export type ProjectSelector = { id: number } | { slug: string };

export interface CreateProjectInput {
  name: string;
  slug: string;
  prefix: string;
  description: string;
  /** Empty means the default workflow. */
  statuses: readonly StatusDefinition[];
}

export interface ProjectService {
  /** The project with that id or slug; 404 "Project not found" otherwise. */
  resolveProject(selector: ProjectSelector): Promise<ProjectRecord>;
  /** The project with that id or slug, or null. */
  findProject(selector: ProjectSelector): Promise<ProjectRecord | null>;
  /** All projects in id order, or only `onlyProjectId` (empty when it does not exist). */
  listProjects(onlyProjectId?: number): Promise<ProjectRecord[]>;
  /** Creates a project; 422 on invalid input or a slug/prefix already in use. */
  createProject(input: CreateProjectInput): Promise<ProjectRecord>;
}

/** Duplicate identifiers are validation errors of their field (422), like any other bad value. */
function duplicateMessage(field: string, value: string): string {
  return field === 'slug'
    ? `A project with slug "${value}" already exists`
    : `Prefix "${value}" is already used by another project`;
}

/** Builds the project use cases over a store. */
export function createProjectService(store: ProjectStore): ProjectService {
  // A slug that breaks the slug rule cannot exist; answering without the database also keeps
  // values PostgreSQL cannot even compare (NUL bytes) away from it.
  const findProject = async (selector: ProjectSelector) => {
    if ('id' in selector) return store.findById(selector.id);
    return PROJECT_SLUG_PATTERN.test(selector.slug) ? store.findBySlug(selector.slug) : null;
  };
  return {
    findProject,

    async resolveProject(selector) {
      const project = await findProject(selector);
      if (!project) throw AppError.notFound(PROJECT_NOT_FOUND);
      return project;
    },

    listProjects(onlyProjectId) {
      return store.list(onlyProjectId === undefined ? {} : { onlyId: onlyProjectId });
    },

    async createProject(input) {
      const project = validateNewProject(input);
      const taken = await store.takenIdentifiers(project.slug, project.prefix);
      const errors = new FieldErrors();
      if (taken.slug) errors.add('slug', duplicateMessage('slug', project.slug));
      if (taken.prefix) errors.add('prefix', duplicateMessage('prefix', project.prefix));
      errors.throwIfAny();
      try {
        return await store.create(project);
      } catch (error) {
        // Another request took the identifier between the check and the insert.
        if (error instanceof UniqueViolation) {
          const value = error.field === 'slug' ? project.slug : project.prefix;
          throw AppError.validation({ [error.field]: [duplicateMessage(error.field, value)] });
        }
        throw error;
      }
    },
  };
}
