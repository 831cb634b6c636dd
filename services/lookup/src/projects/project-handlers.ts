/** gRPC handlers of the project RPCs: translate messages, nothing else. */
import { AppError } from '@tix/kit';
import { requireAdminCaller } from '../shared/admin-caller.js';
import type { LookupHandlers } from '../shared/handler-types.js';
import { fromStatusSpecs, toProjectMessage } from './project-mapper.js';
import type { ProjectService } from './project-service.js';

/** The project RPCs over the project service; creating and editing are the admin's. */
export function projectHandlers(
  projects: ProjectService,
): Pick<
  LookupHandlers,
  | 'ResolveProject'
  | 'ListProjects'
  | 'CreateProject'
  | 'UpdateProject'
  | 'AddProjectStatus'
  | 'UpdateProjectStatus'
  | 'RemoveProjectStatus'
> {
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

    async UpdateProject(request, context) {
      requireAdminCaller(context);
      const project = await projects.updateProject(
        request.id,
        {
          ...(request.name === undefined ? {} : { name: request.name }),
          ...(request.description === undefined ? {} : { description: request.description }),
        },
        context,
      );
      return toProjectMessage(project);
    },

    async AddProjectStatus(request, context) {
      requireAdminCaller(context);
      const status = request.status;
      const project = await projects.addStatus(
        request.project_id,
        {
          slug: status?.slug ?? '',
          label: status?.label ?? '',
          isClosed: status?.is_closed ?? false,
          ...(request.position === undefined ? {} : { position: request.position }),
        },
        context,
      );
      return toProjectMessage(project);
    },

    async UpdateProjectStatus(request, context) {
      requireAdminCaller(context);
      const project = await projects.updateStatus(
        request.project_id,
        request.slug,
        {
          ...(request.label === undefined ? {} : { label: request.label }),
          ...(request.is_closed === undefined ? {} : { isClosed: request.is_closed }),
          ...(request.position === undefined ? {} : { position: request.position }),
        },
        context,
      );
      return toProjectMessage(project);
    },

    async RemoveProjectStatus(request, context) {
      requireAdminCaller(context);
      const project = await projects.removeStatus(request.project_id, request.slug, request.move_to, context);
      return toProjectMessage(project);
    },
  };
}
