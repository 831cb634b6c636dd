/**
 * The operations the API description lists, in its order. Declared operations (routes/operation.ts:
 * one object per operation, served and described) come from their route modules; the entries still
 * written here describe routes not yet declared that way, and move into their route modules one
 * resource at a time. The route coverage test walks the real routers and checks both ways that this
 * list and the served routes agree, down to the schema objects.
 */
import type { OperationDescription } from '../routes/operation.js';
import { API_DESCRIPTION_OPERATIONS } from '../routes/app/openapi.js';
import { SESSION_OPERATIONS } from '../routes/app/session.js';
import { ATTACHMENT_OPERATIONS } from '../routes/v1/attachments.js';
import { BOARD_OPERATIONS } from '../routes/v1/board.js';
import { COMMENT_OPERATIONS } from '../routes/v1/comments.js';
import { LOOKUP_OPERATIONS } from '../routes/v1/lookups.js';
import { TICKET_OPERATIONS } from '../routes/v1/tickets.js';
import {
  createWebhookBody,
  deliveryParams,
  listDeliveriesQuery,
  webhookIdParams,
} from '../routes/v1/webhooks.schemas.js';
import { createdWebhookSchema, deliverySchema, paginationSchema, webhookSchema } from './components.js';
import { EXAMPLES } from './examples.js';
import { count, list, message, single } from './responses.js';
import { z as zod } from './zod-openapi.js';

/** The operations of the API host (/v1), in reading order. */
export const API_OPERATIONS: OperationDescription[] = [
  ...LOOKUP_OPERATIONS,

  ...TICKET_OPERATIONS,
  ...BOARD_OPERATIONS,

  ...COMMENT_OPERATIONS,
  ...ATTACHMENT_OPERATIONS,

  // ---- webhooks ----------------------------------------------------------------------------------
  {
    hosts: ['api'],
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    summary: 'List your webhook subscriptions in the project',
    description: 'Never includes `secret`.',
    access: { scope: 'tickets:read', role: 'admin' },
    project: 'required',
    success: {
      kind: 'json',
      status: 200,
      description: 'The subscriptions.',
      data: list('webhooks', webhookSchema, { count }),
      example: { webhooks: [EXAMPLES.webhook], count: 1 },
    },
    errors: [400],
  },
  {
    hosts: ['api'],
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    tag: 'Webhooks',
    summary: 'Subscribe a URL to events',
    description:
      'The response is the only time `secret` is shown. Deliveries are signed: `X-Webhook-Signature` is the ' +
      'lowercase hex HMAC-SHA256 of the raw body keyed with the secret.',
    access: { scope: 'tickets:write', role: 'admin' },
    project: 'required',
    projectFromBody: true,
    request: { body: createWebhookBody },
    bodyExample: {
      url: 'https://hooks.example.com/tix',
      events: ['ticket.created', 'comment.created'],
      project_id: 1,
    },
    success: single(
      201,
      'The subscription, with its secret.',
      'webhook',
      createdWebhookSchema,
      EXAMPLES.createdWebhook,
    ),
    errors: [400, 409, 422],
  },
  {
    hosts: ['api'],
    method: 'delete',
    path: '/webhooks/:id',
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    summary: 'Delete a webhook subscription',
    description: 'No further events are delivered to it.',
    access: { scope: 'tickets:write', role: 'admin' },
    project: 'required',
    request: { params: webhookIdParams },
    success: {
      kind: 'json',
      status: 200,
      description: 'Confirmation.',
      data: message,
      example: { message: 'Webhook deleted' },
    },
    errors: [400, 404],
  },
  {
    hosts: ['api'],
    method: 'get',
    path: '/webhooks/:id/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'The delivery log of a webhook (additive)',
    access: { scope: 'tickets:read', role: 'admin' },
    project: 'required',
    request: { params: webhookIdParams, query: listDeliveriesQuery },
    success: {
      kind: 'json',
      status: 200,
      description: 'A page of deliveries, newest first.',
      data: zod.object({ deliveries: zod.array(deliverySchema), pagination: paginationSchema }),
      example: { deliveries: [EXAMPLES.delivery], pagination: EXAMPLES.pagination },
    },
    errors: [400, 404],
  },
  {
    hosts: ['api'],
    method: 'post',
    path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
    operationId: 'redeliverWebhookDelivery',
    tag: 'Webhooks',
    summary: 'Deliver an event again (additive)',
    description: 'Queues a new delivery of the same event; follow it in the delivery log.',
    access: { scope: 'tickets:write', role: 'admin' },
    project: 'required',
    request: { params: deliveryParams },
    success: {
      kind: 'json',
      status: 202,
      description: 'The queued delivery.',
      data: zod.object({ delivery: deliverySchema }),
      example: { delivery: { ...EXAMPLES.delivery, status: 'pending', attempts: [] } },
    },
    errors: [400, 404, 409, 422],
  },
];

/** The operations of the app host (/api), in reading order. */
export const APP_OPERATIONS: OperationDescription[] = [...SESSION_OPERATIONS, ...API_DESCRIPTION_OPERATIONS];

export const OPERATIONS: readonly OperationDescription[] = [...API_OPERATIONS, ...APP_OPERATIONS];
