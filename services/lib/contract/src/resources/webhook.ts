/**
 * Spec Webhook and the additive delivery log, as the API sends them: declared once here. The
 * gateway's presenters (resources/presenters/webhooks.ts) write them; its OpenAPI document names
 * each (`Webhook`, `CreatedWebhook`, `WebhookDetail`, `RotatedWebhook`, `Delivery`, `PingResult`).
 */
import { z } from 'zod';
import { SUBSCRIBABLE_EVENT_TYPES } from '../events.js';
import { idField as id, timestampField as timestamp } from './fields.js';

const webhookShape = {
  id: id('Webhook id.'),
  url: z.string().meta({ description: 'Delivery target.', format: 'uri' }),
  events: z
    .array(z.string())
    .meta({ description: `Subscribed event types (${SUBSCRIBABLE_EVENT_TYPES.join(', ')}).` }),
  is_active: z.boolean(),
  created_at: timestamp('Creation time'),
  project_id: id('Project id (additive).'),
};

export const webhookSchema = z
  .object(webhookShape)
  .meta({ description: 'A webhook subscription; never shows the secret.' });

export const createdWebhookSchema = z
  .object({
    ...webhookShape,
    secret: z.string().meta({ description: 'Signing secret; shown only in this response.' }),
  })
  .meta({ description: 'A webhook subscription as created: with its signing secret.' });

export const deliveryAttemptSchema = z
  .object({
    number: z.number().int().meta({ description: 'Attempt number, from 1.' }),
    response_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The receiver's HTTP status; null on timeout or connection failure." }),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    attempted_at: timestamp('Attempt time'),
    response_body: z.string().nullable().meta({
      description:
        "The start of the receiver's answer: its first 4096 bytes (UTF-8, cut at a character). Null when no answer arrived.",
    }),
    response_body_truncated: z.boolean().meta({ description: 'The answer was longer than `response_body`.' }),
  })
  .meta({ id: 'DeliveryAttempt', description: 'One attempt of a delivery.' });

export const deliverySchema = z
  .object({
    id: z.string().meta({ description: 'Delivery id (UUID).', format: 'uuid' }),
    webhook_id: id('Webhook id.'),
    event: z.string().meta({ description: 'Event type.' }),
    event_id: z.string().meta({ description: 'Domain event id (UUID).', format: 'uuid' }),
    status: z.string().meta({ description: 'pending, delivered or failed.' }),
    attempts: z.array(deliveryAttemptSchema).meta({ description: 'Oldest first.' }),
    created_at: timestamp('Creation time'),
    updated_at: timestamp('Last change'),
    request_body: z.string().meta({
      description: 'The start of the body sent (every attempt sends the same bytes): its first 4096 bytes.',
    }),
    request_body_truncated: z
      .boolean()
      .meta({ description: 'The body sent was longer than `request_body`.' }),
  })
  .meta({ description: 'One delivery of one event to one webhook (additive delivery log).' });

const previousSecretExpiresAt = z
  .string()
  .nullable()
  .meta({
    description:
      'After a secret rotation: until when the previous secret still signs `webhook-signature` beside the new one ' +
      '(ISO 8601); null when no previous secret signs.',
    format: 'date-time',
  });

export const webhookDetailSchema = z
  .object({ ...webhookShape, previous_secret_expires_at: previousSecretExpiresAt })
  .meta({
    description: 'A webhook subscription as its own endpoints answer it (additive): never the secret.',
  });

export const rotatedWebhookSchema = z
  .object({
    ...webhookShape,
    previous_secret_expires_at: previousSecretExpiresAt,
    secret: z.string().meta({ description: 'The new signing secret; shown only in this response.' }),
  })
  .meta({ description: 'A webhook subscription after a secret rotation, with its new secret.' });

export const pingResultSchema = z
  .object({
    event_id: z.string().meta({ description: 'The `webhook-id` the ping carried (UUID).', format: 'uuid' }),
    ok: z.boolean().meta({ description: 'The receiver answered 2xx.' }),
    response_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The receiver's HTTP status; null on timeout, refusal or connection failure." }),
    duration_ms: z.number().int(),
    error: z
      .string()
      .nullable()
      .meta({ description: 'What failed (e.g. `HTTP 500`, `timeout after 10000 ms`).' }),
    request_body: z.string().meta({ description: 'The body sent: the `ping` payload.' }),
    response_body: z.string().nullable().meta({
      description: "The start of the receiver's answer (first 4096 bytes); null when none arrived.",
    }),
    response_body_truncated: z.boolean(),
  })
  .meta({ description: 'The outcome of one signed test delivery (not in the delivery log).' });

/** A subscription as the list answers it (the output of webhookSchema). */
export type WebhookJson = z.output<typeof webhookSchema>;
/** A subscription as created, with its secret (the output of createdWebhookSchema). */
export type CreatedWebhookJson = z.output<typeof createdWebhookSchema>;
/** A subscription as its own endpoints answer it (the output of webhookDetailSchema). */
export type WebhookDetailJson = z.output<typeof webhookDetailSchema>;
/** A delivery with its attempts (the output of deliverySchema). */
export type DeliveryJson = z.output<typeof deliverySchema>;
/** The outcome of a ping (the output of pingResultSchema). */
export type PingResultJson = z.output<typeof pingResultSchema>;
