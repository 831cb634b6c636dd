/** gRPC handlers of the WebhookService: translate messages to use-case inputs and back, nothing else. */
import type { AsyncHandlers } from '@tix/kit';
import type { webhook } from '@tix/protos';
import { listDeliveries, redeliver, type DeliveryLogDeps } from './delivery/delivery-log.js';
import {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  type SubscriptionDeps,
} from './subscriptions/manage-subscriptions.js';
import { toDeliveryMessage, toWebhookMessage } from './webhook-mapper.js';

export type WebhookHandlers = AsyncHandlers<webhook.WebhookServiceHandlers>;

/** Every RPC of the contract over the subscription and delivery-log use cases. */
export function webhookHandlers(deps: SubscriptionDeps & DeliveryLogDeps): WebhookHandlers {
  return {
    async ListWebhooks(request, context) {
      const rows = await listWebhooks(
        deps,
        { projectId: request.project_id, allOwners: request.all_owners },
        context.principal,
      );
      return { webhooks: rows.map((row) => toWebhookMessage(row)), count: rows.length };
    },

    async CreateWebhook(request, context) {
      const created = await createWebhook(
        deps,
        {
          projectId: request.project_id,
          url: request.url,
          events: request.events,
          secret: request.secret,
        },
        context.principal,
      );
      return toWebhookMessage(created, created.secret);
    },

    async DeleteWebhook(request, context) {
      return deleteWebhook(deps, { projectId: request.project_id, id: request.id }, context.principal);
    },

    async ListDeliveries(request, context) {
      const { rows, pagination } = await listDeliveries(
        deps,
        { projectId: request.project_id, webhookId: request.webhook_id, page: request.page },
        context.principal,
      );
      return { deliveries: rows.map(toDeliveryMessage), pagination };
    },

    async RedeliverDelivery(request, context) {
      const queued = await redeliver(
        deps,
        { projectId: request.project_id, webhookId: request.webhook_id, deliveryId: request.delivery_id },
        context.principal,
      );
      return toDeliveryMessage(queued);
    },
  };
}
