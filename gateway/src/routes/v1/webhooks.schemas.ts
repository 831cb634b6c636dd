/**
 * The request schemas of the webhook routes (spec "Webhooks", plus the additive delivery log).
 * The gateway checks shapes and types; what a value means (the URL's target policy, the event
 * names, the secret's format) is the webhook service's to decide, and its 422s name each field.
 */
import { z } from 'zod';
import { SUBSCRIBABLE_EVENT_TYPES, WEBHOOK_LIMITS } from '@tix/protos';
import { enumParam, idParam, integerField, pageParams, timeParam } from '../../http/schema-fields.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';

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

const urlField = () =>
  z
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
    });

const eventsField = () =>
  z
    .array(z.string({ error: 'Each event must be a string' }), {
      error: (issue) =>
        issue.input === undefined ? 'Events are required' : 'Events must be an array of event types',
    })
    .min(1, 'Events must name at least one event type')
    .max(MAX_EVENT_NAMES, `Give at most ${MAX_EVENT_NAMES} event types`)
    .meta({
      description: `Event types to receive: any of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}.`,
      example: ['ticket.created', 'comment.created'],
    });

export const createWebhookBody = z.object(
  {
    url: urlField(),
    events: eventsField(),
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

/** PATCH /webhooks/{id}: any of url, events, is_active (the service answers 422 when none is given). */
export const updateWebhookBody = z.object(
  {
    url: urlField().optional(),
    events: eventsField().optional(),
    is_active: z
      .boolean({ error: 'is_active must be true or false' })
      .meta({ description: 'false pauses the subscription (nothing is queued or sent), true resumes it.' })
      .optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

/** Seconds the replaced secret keeps signing `webhook-signature` (the service's ROTATION_OVERLAP). */
export const ROTATION_OVERLAP_SECONDS = { default: 86_400, max: 604_800 } as const;

export const rotateSecretBody = z.object(
  {
    overlap_seconds: integerField('overlap_seconds', {
      min: 0,
      max: ROTATION_OVERLAP_SECONDS.max,
      description:
        `Seconds the previous secret keeps signing \`webhook-signature\` beside the new one ` +
        `(default ${ROTATION_OVERLAP_SECONDS.default}, at most ${ROTATION_OVERLAP_SECONDS.max}; 0 ends it now).`,
      example: 3600,
    }).optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export const listDeliveriesQuery = z.object({
  ...pageParams('Deliveries'),
  status: enumParam(DELIVERY_STATUSES, {
    message: `status must be one of ${DELIVERY_STATUSES.join(', ')}`,
    description: 'Only deliveries in this state.',
    example: 'failed',
  }).optional(),
  event: enumParam(SUBSCRIBABLE_EVENT_TYPES, {
    message: `event must be one of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`,
    description: 'Only deliveries of this event type.',
    example: 'ticket.created',
  }).optional(),
  since: timeParam('since', {
    description: 'Only deliveries created at or after this time (ISO 8601).',
    example: '2026-05-02T10:11:00Z',
  }).optional(),
  until: timeParam('until', {
    description: 'Only deliveries created before this time (ISO 8601).',
    example: '2026-05-03T10:11:00Z',
  }).optional(),
});

const SINCE_MESSAGE = 'since must be an ISO 8601 date-time such as 2026-05-02T10:11:00Z';

/** POST /webhooks/{id}/deliveries/redeliver: every failed delivery since a time. */
export const redeliverFailedBody = z.object(
  {
    since: z
      .string({ error: (issue) => (issue.input === undefined ? 'since is required' : SINCE_MESSAGE) })
      .refine((value) => timeParam('since', { description: '' }).safeParse(value).success, SINCE_MESSAGE)
      .transform((value) => new Date(value).toISOString())
      .meta({
        description: 'Failed deliveries created at or after this time (ISO 8601) are redelivered.',
        format: 'date-time',
        example: '2026-05-02T10:11:00Z',
      }),
    status: z
      .enum(['failed'], { error: 'status must be failed' })
      .meta({ description: 'Which deliveries: only `failed` (the default).', example: 'failed' })
      .optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

export type CreateWebhookBody = z.output<typeof createWebhookBody>;
