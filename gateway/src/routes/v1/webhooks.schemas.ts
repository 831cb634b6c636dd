/**
 * The request schemas of the webhook routes (spec "Webhooks", plus the additive delivery log).
 * The gateway checks shapes and types; what a value means (the URL's target policy, the event
 * names, the secret's format) is the webhook service's to decide, and its 422s name each field.
 */
import { z } from 'zod';
import { SUBSCRIBABLE_EVENT_TYPES, WEBHOOK_LIMITS } from '@tix/protos';
import { enumParam, idParam, integerField, pageParams } from '../../http/schema-fields.js';
import { BODY_NOT_OBJECT_MESSAGE } from './tickets.schemas.js';

export const INVALID_WEBHOOK_ID_MESSAGE = 'Invalid webhook id';
export const INVALID_DELIVERY_ID_MESSAGE = 'Invalid delivery id';
/** More names than this in `events` cannot be a subset of the enum (duplicates aside). */
export const MAX_EVENT_NAMES = 50;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** GET /webhooks: the caller's own subscriptions (the spec's list), or every owner's (admins). */
export const listWebhooksQuery = z.object({
  owner: enumParam(['me', 'all'], {
    message: 'owner must be me or all',
    description: "`me` (default): your own subscriptions. `all`: every owner's in the project (admins only).",
    example: 'all',
  }).optional(),
});

/** Path `{id}` of /webhooks/{id}...: 1 to 2147483647, digits only. */
export const webhookIdParams = z.object({
  id: idParam({ message: INVALID_WEBHOOK_ID_MESSAGE, description: 'Webhook id.', example: 3 }),
});

/** Path of /webhooks/{id}/deliveries/{deliveryId}/redeliver. */
export const deliveryParams = z.object({
  id: idParam({ message: INVALID_WEBHOOK_ID_MESSAGE, description: 'Webhook id.', example: 3 }),
  deliveryId: z
    .string({ error: INVALID_DELIVERY_ID_MESSAGE })
    .regex(UUID, INVALID_DELIVERY_ID_MESSAGE)
    .transform((value) => value.toLowerCase())
    .meta({ description: 'Delivery id (UUID).', example: '0b3f8a0e-6f5c-4a59-9a53-8d3f3a4f9c01' }),
});

export const createWebhookBody = z.object(
  {
    url: z
      .string({
        error: (issue) => (issue.input === undefined ? 'URL is required' : 'URL must be a string'),
      })
      .min(1, 'URL is required')
      // The webhook service refuses a longer URL too, with the same message.
      .max(WEBHOOK_LIMITS.url, `URL must be at most ${WEBHOOK_LIMITS.url} characters`)
      .meta({
        description:
          'Absolute URL receiving the POSTs. Production: https only, and the host must resolve to public addresses.',
        example: 'https://hooks.example.com/tix',
        maxLength: WEBHOOK_LIMITS.url,
      }),
    events: z
      .array(z.string({ error: 'Each event must be a string' }), {
        error: (issue) =>
          issue.input === undefined ? 'Events are required' : 'Events must be an array of event types',
      })
      .min(1, 'Events must name at least one event type')
      .max(MAX_EVENT_NAMES, `Give at most ${MAX_EVENT_NAMES} event types`)
      .meta({
        description: `Event types to receive: any of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}.`,
        example: ['ticket.created', 'comment.created'],
      }),
    project_id: integerField('Project ID', {
      min: 1,
      description: 'The project the webhook belongs to; must be the project of the request.',
      example: 1,
    }),
    secret: z
      .string({ error: 'Secret must be a string' })
      .nullable()
      .meta({
        description:
          `Signing secret, ${WEBHOOK_LIMITS.secretMin} to ${WEBHOOK_LIMITS.secretMax} printable ASCII characters; ` +
          'generated (whsec_ + 32 random bytes, base64) when omitted or null. Returned only in this response.',
        example: null,
      })
      .optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

export const listDeliveriesQuery = z.object({
  ...pageParams('Deliveries'),
});

export type CreateWebhookBody = z.output<typeof createWebhookBody>;
