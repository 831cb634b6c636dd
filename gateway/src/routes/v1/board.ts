/**
 * GET /v1/board (tickets:read + project context): one lane per status of the project in workflow
 * order, filters `priority` and `assignee`, at most `lane_limit` tickets per lane with exact counts.
 */
import type { Router } from 'express';
import { sendData } from '../../http/envelope.js';
import { callContext, requireProject } from '../../http/request-context.js';
import { defineRoute } from '../../http/routing.js';
import { handleValidated } from '../../http/validate.js';
import { projectContext } from '../../middleware/project-context.js';
import { requireScope } from '../../middleware/require-scope.js';
import type { ProjectResolver } from '../../projects/project-resolver.js';
import { requireService, type ServiceClients } from '../../services.js';
import { boardRequest, presentBoard } from './tickets.mapping.js';
import { boardQuery } from './board.schemas.js';

/** Registers the board route on the API router. */
export function boardRoutes(
  router: Router,
  deps: { services: ServiceClients; projects: ProjectResolver },
): void {
  defineRoute(router, '/board', {
    get: [
      requireScope('tickets:read'),
      projectContext({ resolver: deps.projects }),
      ...handleValidated({ query: boardQuery }, async ({ query }, request, response) => {
        const board = await requireService(deps.services, 'tickets').GetBoard(
          boardRequest(requireProject(request).id, query),
          callContext(request),
        );
        sendData(response, presentBoard(board));
      }),
    ],
  });
}
