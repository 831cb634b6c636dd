/**
 * The prose of the webhook operations and the delivery log (routes/v1/webhooks.ts) in the API
 * description, by operationId.
 */
import { MAX_BULK_REDELIVERIES } from '@tix/protos';

export const WEBHOOK_DESCRIPTIONS = {
  listWebhooks:
    "Never includes `secret`. `owner=all` lists every owner's (admins, who also manage any subscription of the project by id).",
  createWebhook:
    'The response is the only time `secret` is shown. Deliveries are signed: `X-Webhook-Signature` is the ' +
    'lowercase hex HMAC-SHA256 of the raw body keyed with the secret.',
  deleteWebhook: 'No further events are delivered to it.',
  listWebhookDeliveries:
    'Filter by `status`, `event` and creation time (`since` inclusive, `until` exclusive); unknown parameters ' +
    'are 400. Each delivery shows the start of the body sent and each attempt the start of the answer ' +
    '(4096 bytes, flagged when cut).',
  redeliverWebhookDelivery: 'Queues a new delivery of the same event; follow it in the delivery log.',
  getWebhook: 'Never includes `secret`. Yours, or any of the project for admins; otherwise 404.',
  updateWebhook:
    'Any of `url`, `events` (replaces the list) and `is_active`, validated as on create (the URL by the same ' +
    'target policy); none of them is 422. `is_active: false` pauses: pending deliveries end as failed and events ' +
    'while paused are not queued (catch up from GET /events, or redeliver the failed ones after resuming). ' +
    '`is_active: true` resumes.',
  rotateWebhookSecret:
    'Generates a new secret, shown only in this response. `X-Webhook-Signature` uses the new secret at once; ' +
    'during the overlap (`overlap_seconds`, default 86400, at most 604800) `webhook-signature` carries two ' +
    'signatures, `v1,<new> v1,<previous>`, so a Standard Webhooks receiver switches without losing a delivery.',
  pingWebhook:
    'POSTs `{ event: "ping", timestamp, data: { webhook_id, project_id } }` to the URL, signed and sent like every ' +
    'delivery (same headers, target policy and timeout; one attempt), also to a paused webhook, and answers what ' +
    'happened. 200 whatever the receiver answered (see `ok`); not recorded in the delivery log.',
  redeliverFailedWebhookDeliveries:
    'Queues a new delivery for each failed delivery created at or after `since` that is the latest of its event ' +
    '(an event already redelivered is not queued twice), oldest first, ' +
    `at most ${MAX_BULK_REDELIVERIES} per call: \`remaining\` > 0 means call again. ` +
    '409 while the webhook is paused.',
};
