/** gRPC handlers of the project RPCs: translate messages, nothing else. */
import { AppError } from '@tix/kit';
import { requireAdminCaller } from '../shared/admin-caller.js';
import type { LookupHandlers } from '../shared/handler-types.js';
import { fromStatusSpecs, toProjectMessage } from './project-mapper.js';
import type { ProjectService } from './project-service.js';

/** ResolveProject, ListProjects and CreateProject over the project service. */
export function projectHandlers(
  projects: ProjectService,
): Pick<LookupHandlers, 'ResolveProject' | 'ListProjects' | 'CreateProject'> {
  return {
    async ResolveProject(request) {
      if (request.selector === 'id' && request.id !== undefined) {
        return toProjectMessage(await projects.resolveProject({ id: request.id }));
      }
      if (request.selector === 'slug' && request.slug !== undefined) {
        return toProjectMessage(await projects.resolveProject({ slug: request.slug }));
      }
      throw AppError.badRequest('Project id or slug is required');
    },

    async ListProjects(request) {
      const list = await projects.listProjects(request.only_project_id);
      return { projects: list.map(toProjectMessage) };
    },

    async CreateProject(request, context) {
      requireAdminCaller(context);
      const project = await projects.createProject({
        name: request.name,
        slug: request.slug,
        prefix: request.prefix,
        description: request.description,
        statuses: fromStatusSpecs(request.statuses),
      });
      return toProjectMessage(project);
    },
  };
}
