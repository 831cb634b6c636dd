/** Rows -> WebhookService messages (field names are the API's; timestamps ISO 8601 UTC). */
import type { webhook } from '@tix/protos';
import type { DeliveryRow } from './delivery/delivery-log-store.js';
import type { WebhookRow } from './subscriptions/subscription-store.js';

/** A subscription; `secret` only when given (the create response). */
export function toWebhookMessage(row: WebhookRow, secret?: string): webhook.Webhook {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    is_active: row.is_active,
    created_at: row.created_at.toISOString(),
    project_id: row.project_id,
    ...(secret === undefined ? {} : { secret }),
  };
}

/** A delivery with its attempts (an absent response code or error stays absent). */
export function toDeliveryMessage(row: DeliveryRow): webhook.Delivery {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event: row.event_type,
    status: row.status,
    attempts: row.attempts.map((attempt) => ({
      number: attempt.number,
      duration_ms: attempt.duration_ms,
      attempted_at: attempt.attempted_at,
      ...(attempt.response_code === null ? {} : { response_code: attempt.response_code }),
      ...(attempt.error === null ? {} : { error: attempt.error }),
    })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
