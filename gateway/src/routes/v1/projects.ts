/** GET /v1/projects: the projects the key can see (any valid key; a project-scoped key sees only its own). */
import type { Router } from 'express';
import { sendData } from '../../http/envelope.js';
import { callContext, requirePrincipal } from '../../http/request-context.js';
import { defineRoute } from '../../http/routing.js';
import { presentProject } from '@tix/protos';
import { requireService, type ServiceClients } from '../../services.js';

/** Registers the project routes on the API router. */
export function projectRoutes(router: Router, deps: { services: ServiceClients }): void {
  defineRoute(router, '/projects', {
    get: [
      async (request, response) => {
        const principal = requirePrincipal(request);
        const { projects } = await requireService(deps.services, 'lookup').ListProjects(
          principal.project_id === undefined ? {} : { only_project_id: principal.project_id },
          callContext(request),
        );
        sendData(response, { projects: projects.map(presentProject), count: projects.length });
      },
    ],
  });
}
