/** gRPC handlers of the WebhookService: translate messages to use-case inputs and back, nothing else. */
import type { AsyncHandlers } from '@tix/kit';
import type { webhook } from '@tix/protos';
import { listDeliveries, redeliver, redeliverFailed, type DeliveryLogDeps } from './delivery/delivery-log.js';
import { pingWebhook, type PingDeps } from './delivery/ping.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
  type SubscriptionDeps,
} from './subscriptions/manage-subscriptions.js';
import { toDeliveryMessage, toWebhookMessage } from './webhook-mapper.js';

export type WebhookHandlers = AsyncHandlers<webhook.WebhookServiceHandlers>;

/** Every RPC of the contract over the subscription and delivery-log use cases. */
export function webhookHandlers(
  deps: SubscriptionDeps & DeliveryLogDeps & { ping: PingDeps },
): WebhookHandlers {
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
        {
          projectId: request.project_id,
          webhookId: request.webhook_id,
          page: request.page,
          filter: {
            status: request.status,
            event: request.event,
            since: request.since,
            until: request.until,
          },
        },
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

    async GetWebhook(request, context) {
      const row = await getWebhook(
        deps,
        { projectId: request.project_id, id: request.id },
        context.principal,
      );
      return toWebhookMessage(row);
    },

    async UpdateWebhook(request, context) {
      const row = await updateWebhook(
        deps,
        {
          projectId: request.project_id,
          id: request.id,
          url: request.url,
          events: request.set_events ? request.events : undefined,
          isActive: request.is_active,
        },
        context.principal,
      );
      return toWebhookMessage(row);
    },

    async RotateWebhookSecret(request, context) {
      const rotated = await rotateWebhookSecret(
        deps,
        { projectId: request.project_id, id: request.id, overlapSeconds: request.overlap_seconds },
        context.principal,
      );
      return toWebhookMessage(rotated, rotated.secret);
    },

    async PingWebhook(request, context) {
      const outcome = await pingWebhook(
        deps.ping,
        { projectId: request.project_id, id: request.id },
        context.principal,
      );
      return {
        event_id: outcome.eventId,
        ok: outcome.ok,
        duration_ms: outcome.durationMs,
        ...(outcome.responseCode === null ? {} : { response_code: outcome.responseCode }),
        ...(outcome.error === null ? {} : { error: outcome.error }),
        ...(outcome.responseBody === null ? {} : { response_body: outcome.responseBody }),
        response_body_truncated: outcome.responseBodyTruncated,
        request_body: outcome.requestBody.text,
      };
    },

    async RedeliverFailed(request, context) {
      return redeliverFailed(
        deps,
        { projectId: request.project_id, webhookId: request.webhook_id, since: request.since },
        context.principal,
      );
    },
  };
}
