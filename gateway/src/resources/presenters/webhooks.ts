/**
 * WebhookService messages -> the API's JSON: the spec's Webhook (secret only in the create
 * response) and the delivery log's Delivery (absent response codes and errors as null).
 */
import type {
  CreatedWebhookJson,
  DeliveryJson,
  PingResultJson,
  webhook,
  WebhookDetailJson,
  WebhookJson,
} from '@tix/protos';

/** A subscription; `secret` only when the message carries it (create). */
export function presentWebhook(
  message: webhook.Webhook__Output,
): WebhookJson & Partial<Pick<CreatedWebhookJson, 'secret'>> {
  const json: WebhookJson & Partial<Pick<CreatedWebhookJson, 'secret'>> = {
    id: message.id,
    url: message.url,
    events: message.events,
    is_active: message.is_active,
    created_at: message.created_at,
    project_id: message.project_id,
  };
  if (message.secret !== undefined) json.secret = message.secret;
  return json;
}

/**
 * A subscription as its own endpoints answer it (GET one, PATCH, rotation): the spec's Webhook plus
 * until when a rotated-out secret still signs. The spec's list and create answers stay presentWebhook.
 */
export function presentWebhookDetail(message: webhook.Webhook__Output): WebhookDetailJson {
  return {
    ...presentWebhook(message),
    previous_secret_expires_at: message.previous_secret_expires_at ?? null,
  };
}

/** The outcome of a ping. */
export function presentPing(message: webhook.PingResult__Output): PingResultJson {
  return {
    event_id: message.event_id,
    ok: message.ok,
    response_code: message.response_code ?? null,
    duration_ms: message.duration_ms,
    error: message.error ?? null,
    request_body: message.request_body,
    response_body: message.response_body ?? null,
    response_body_truncated: message.response_body_truncated,
  };
}

/** A delivery with its attempts, oldest attempt first; bodies as excerpts of at most 4 KiB. */
export function presentDelivery(message: webhook.Delivery__Output): DeliveryJson {
  return {
    id: message.id,
    webhook_id: message.webhook_id,
    event: message.event,
    event_id: message.event_id,
    status: message.status,
    attempts: message.attempts.map((attempt) => ({
      number: attempt.number,
      response_code: attempt.response_code ?? null,
      duration_ms: attempt.duration_ms,
      error: attempt.error ?? null,
      attempted_at: attempt.attempted_at,
      response_body: attempt.response_body ?? null,
      response_body_truncated: attempt.response_body_truncated,
    })),
    created_at: message.created_at,
    updated_at: message.updated_at,
    request_body: message.request_body,
    request_body_truncated: message.request_body_truncated,
  };
}
