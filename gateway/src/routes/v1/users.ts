/** GET /v1/users: every user, to look up assignee ids (tickets:read; no project needed). */
import type { Router } from 'express';
import { sendData } from '../../http/envelope.js';
import { callContext } from '../../http/request-context.js';
import { defineRoute } from '../../http/routing.js';
import { requireScope } from '../../middleware/require-scope.js';
import { presentUser } from '@tix/protos';
import { requireService, type ServiceClients } from '../../services.js';

/** Registers the user routes on the API router. */
export function userRoutes(router: Router, deps: { services: ServiceClients }): void {
  defineRoute(router, '/users', {
    get: [
      requireScope('tickets:read'),
      async (request, response) => {
        const { users } = await requireService(deps.services, 'lookup').ListUsers(
          { active_only: false },
          callContext(request),
        );
        sendData(response, { users: users.map(presentUser), count: users.length });
      },
    ],
  });
}
