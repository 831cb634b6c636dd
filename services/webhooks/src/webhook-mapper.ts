/** Rows -> WebhookService messages (field names are the API's; timestamps ISO 8601 UTC). */
import type { webhook } from '@tix/protos';
import { bodyExcerpt } from './delivery/body-excerpt.js';
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
    ...(row.previous_secret_expires_at === null
      ? {}
      : { previous_secret_expires_at: row.previous_secret_expires_at.toISOString() }),
  };
}

/** A delivery with its attempts (an absent response code or error stays absent), bodies as excerpts. */
export function toDeliveryMessage(row: DeliveryRow): webhook.Delivery {
  const request = bodyExcerpt(row.body ?? '');
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
      // Attempts recorded before the log kept bodies have neither field.
      ...(attempt.response_body === null || attempt.response_body === undefined
        ? {}
        : { response_body: attempt.response_body }),
      response_body_truncated: attempt.response_body_truncated ?? false,
    })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    request_body: request.text,
    request_body_truncated: request.truncated,
  };
}
