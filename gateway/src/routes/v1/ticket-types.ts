/** GET /v1/ticket-types: the ticket types of the request's project (tickets:read + project context). */
import type { Router } from 'express';
import { sendData } from '../../http/envelope.js';
import { callContext, requireProject } from '../../http/request-context.js';
import { defineRoute } from '../../http/routing.js';
import { projectContext } from '../../middleware/project-context.js';
import { requireScope } from '../../middleware/require-scope.js';
import { presentTicketType } from '@tix/protos';
import type { ProjectResolver } from '../../projects/project-resolver.js';
import { requireService, type ServiceClients } from '../../services.js';

/** Registers the ticket-type routes on the API router. */
export function ticketTypeRoutes(
  router: Router,
  deps: { services: ServiceClients; projects: ProjectResolver },
): void {
  defineRoute(router, '/ticket-types', {
    get: [
      requireScope('tickets:read'),
      projectContext({ resolver: deps.projects }),
      async (request, response) => {
        const { ticket_types } = await requireService(deps.services, 'lookup').ListTicketTypes(
          { project_id: requireProject(request).id },
          callContext(request),
        );
        sendData(response, { ticket_types: ticket_types.map(presentTicketType), count: ticket_types.length });
      },
    ],
  });
}
