/**
 * The webhook routes (spec "Webhooks", plus the additive delivery log), each a thin chain:
 * scope -> project context -> validation (webhooks.schemas.ts) -> one WebhookService call -> JSON.
 * GETs need tickets:read, writes tickets:write (spec). Subscriptions belong to the calling user:
 * the service answers another user's as 404. Creation takes its project from the body's
 * project_id when the key is not project-scoped; the body's project_id must name the request's
 * project (a scoped key naming another project is 404, as project context decides).
 */
import type { Router } from 'express';
import { AppError } from '@tix/kit';
import { sendData } from '../../http/envelope.js';
import { callContext, requireProject } from '../../http/request-context.js';
import { defineRoute } from '../../http/routing.js';
import { handleValidated } from '../../http/validate.js';
import { projectContext } from '../../middleware/project-context.js';
import { requireScope } from '../../middleware/require-scope.js';
import type { ProjectResolver } from '../../projects/project-resolver.js';
import { requireService, type ServiceClients } from '../../services.js';
import { presentDelivery, presentWebhook } from './webhooks.mapping.js';
import {
  createWebhookBody,
  deliveryParams,
  listDeliveriesQuery,
  webhookIdParams,
} from './webhooks.schemas.js';

export const PROJECT_MISMATCH_MESSAGE = 'project_id must be the project of the request';

/** Registers the /webhooks routes on the API router. */
export function webhookRoutes(
  router: Router,
  deps: { services: ServiceClients; projects: ProjectResolver },
): void {
  const webhooks = () => requireService(deps.services, 'webhooks');
  const inProject = projectContext({ resolver: deps.projects });
  const read = requireScope('tickets:read');
  const write = requireScope('tickets:write');

  defineRoute(router, '/webhooks', {
    get: [
      read,
      inProject,
      async (request, response) => {
        const list = await webhooks().ListWebhooks(
          { project_id: requireProject(request).id },
          callContext(request),
        );
        sendData(response, { webhooks: list.webhooks.map(presentWebhook), count: list.count });
      },
    ],
    post: [
      write,
      projectContext({ resolver: deps.projects, acceptBodyProjectId: true }),
      ...handleValidated({ body: createWebhookBody }, async ({ body }, request, response) => {
        const project = requireProject(request);
        if (body.project_id !== project.id) {
          throw AppError.validation({ project_id: [PROJECT_MISMATCH_MESSAGE] });
        }
        const created = await webhooks().CreateWebhook(
          {
            project_id: project.id,
            url: body.url,
            events: body.events,
            ...(body.secret === undefined || body.secret === null ? {} : { secret: body.secret }),
          },
          callContext(request),
        );
        sendData(response, { webhook: presentWebhook(created) }, 201);
      }),
    ],
  });

  defineRoute(router, '/webhooks/:id', {
    delete: [
      write,
      inProject,
      ...handleValidated({ params: webhookIdParams }, async ({ params }, request, response) => {
        const { message } = await webhooks().DeleteWebhook(
          { project_id: requireProject(request).id, id: params.id },
          callContext(request),
        );
        sendData(response, { message });
      }),
    ],
  });

  defineRoute(router, '/webhooks/:id/deliveries', {
    get: [
      read,
      inProject,
      ...handleValidated(
        { params: webhookIdParams, query: listDeliveriesQuery },
        async ({ params, query }, request, response) => {
          const page = await webhooks().ListDeliveries(
            {
              project_id: requireProject(request).id,
              webhook_id: params.id,
              page: { page: query.page, per_page: query.per_page },
            },
            callContext(request),
          );
          if (!page.pagination)
            throw AppError.internal('the webhook service answered a page without pagination');
          sendData(response, {
            deliveries: page.deliveries.map(presentDelivery),
            pagination: page.pagination,
          });
        },
      ),
    ],
  });

  defineRoute(router, '/webhooks/:id/deliveries/:deliveryId/redeliver', {
    post: [
      write,
      inProject,
      ...handleValidated({ params: deliveryParams }, async ({ params }, request, response) => {
        const queued = await webhooks().RedeliverDelivery(
          { project_id: requireProject(request).id, webhook_id: params.id, delivery_id: params.deliveryId },
          callContext(request),
        );
        // Accepted: the new delivery is queued; its attempts follow (see its entry in the log).
        sendData(response, { delivery: presentDelivery(queued) }, 202);
      }),
    ],
  });
}
