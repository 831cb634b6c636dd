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
import { BOARD_OPERATIONS } from '../routes/v1/board.js';
import { LOOKUP_OPERATIONS } from '../routes/v1/lookups.js';
import { TICKET_OPERATIONS } from '../routes/v1/tickets.js';
import { attachmentIdParams } from '../routes/v1/attachments.schemas.js';
import {
  commentIdParams,
  createCommentBody,
  listCommentsQuery,
  updateCommentBody,
} from '../routes/v1/comments.schemas.js';
import { ticketIdParams } from '../routes/v1/tickets.schemas.js';
import {
  createWebhookBody,
  deliveryParams,
  listDeliveriesQuery,
  webhookIdParams,
} from '../routes/v1/webhooks.schemas.js';
import {
  attachmentSchema,
  commentSchema,
  createdWebhookSchema,
  deliverySchema,
  paginationSchema,
  webhookSchema,
} from './components.js';
import { EXAMPLES } from './examples.js';
import { count, list, message, single } from './responses.js';
import { z as zod } from './zod-openapi.js';

/** The operations of the API host (/v1), in reading order. */
export const API_OPERATIONS: OperationDescription[] = [
  ...LOOKUP_OPERATIONS,

  ...TICKET_OPERATIONS,
  ...BOARD_OPERATIONS,

  // ---- comments ----------------------------------------------------------------------------------
  {
    hosts: ['api'],
    method: 'get',
    path: '/tickets/:id/comments',
    operationId: 'listComments',
    tag: 'Comments',
    summary: 'List the comments of a ticket',
    description: 'Oldest first; at most the oldest 1000. The path `id` is the ticket id.',
    access: { scope: 'comments:read', role: 'viewer' },
    project: 'required',
    request: { params: ticketIdParams, query: listCommentsQuery },
    success: {
      kind: 'json',
      status: 200,
      description: 'The comments.',
      data: list('comments', commentSchema, {
        count,
        ticket_id: zod.number().int().meta({ description: 'The ticket.' }),
      }),
      example: { comments: [EXAMPLES.comment], count: 1, ticket_id: 42 },
    },
    errors: [400, 404],
  },
  {
    hosts: ['api'],
    method: 'post',
    path: '/tickets/:id/comments',
    operationId: 'createComment',
    tag: 'Comments',
    summary: 'Comment on a ticket',
    description: 'Internal (team-only) by default. The path `id` is the ticket id.',
    access: { scope: 'comments:write', role: 'agent' },
    project: 'required',
    request: { params: ticketIdParams, body: createCommentBody },
    bodyExample: { content: 'Restarted the printer; please try again.', is_internal: false },
    success: single(201, 'The created comment.', 'comment', commentSchema, EXAMPLES.comment),
    errors: [400, 404, 409, 422],
  },
  {
    hosts: ['api'],
    method: 'get',
    path: '/comments/:id',
    operationId: 'getComment',
    tag: 'Comments',
    summary: 'Get a comment',
    access: { scope: 'comments:read', role: 'viewer' },
    project: 'required',
    request: { params: commentIdParams },
    success: single(200, 'The comment.', 'comment', commentSchema, EXAMPLES.comment),
    errors: [400, 404],
  },
  {
    hosts: ['api'],
    method: 'put',
    path: '/comments/:id',
    operationId: 'updateComment',
    tag: 'Comments',
    summary: 'Edit a comment',
    description:
      'Only the author or team leads and above; a public comment cannot become internal. Only given fields change.',
    access: { scope: 'comments:write', role: 'agent' },
    project: 'required',
    request: { params: commentIdParams, body: updateCommentBody },
    bodyExample: { content: 'Restarted the printer twice; please try again.' },
    success: single(200, 'The edited comment.', 'comment', commentSchema, EXAMPLES.comment),
    errors: [400, 403, 404, 409, 422],
  },
  {
    hosts: ['api'],
    method: 'delete',
    path: '/comments/:id',
    operationId: 'deleteComment',
    tag: 'Comments',
    summary: 'Delete a comment',
    description: 'Only the author or admins.',
    access: { scope: 'comments:write', role: 'agent' },
    project: 'required',
    request: { params: commentIdParams },
    success: {
      kind: 'json',
      status: 200,
      description: 'Confirmation.',
      data: message,
      example: { message: 'Comment deleted' },
    },
    errors: [400, 403, 404],
  },

  // ---- attachments -------------------------------------------------------------------------------
  {
    hosts: ['api'],
    method: 'get',
    path: '/tickets/:id/attachments',
    operationId: 'listAttachments',
    tag: 'Attachments',
    summary: 'List the attachments of a ticket',
    description: 'The path `id` is the ticket id.',
    access: { scope: 'tickets:read', role: 'viewer' },
    project: 'required',
    request: { params: ticketIdParams },
    success: {
      kind: 'json',
      status: 200,
      description: 'The attachments.',
      data: list('attachments', attachmentSchema),
      example: { attachments: [EXAMPLES.attachment] },
    },
    errors: [400, 404],
  },
  {
    hosts: ['api'],
    method: 'post',
    path: '/tickets/:id/attachments',
    operationId: 'uploadAttachment',
    tag: 'Attachments',
    summary: 'Upload a file to a ticket',
    description:
      '`multipart/form-data` with exactly one file in the form field `file`; streamed. Too large or an ' +
      'unsupported type answers 422 on `file`. The path `id` is the ticket id.',
    access: { scope: 'tickets:write', role: 'agent' },
    project: 'required',
    request: { params: ticketIdParams },
    upload: { field: 'file' },
    success: single(201, 'The stored attachment.', 'attachment', attachmentSchema, EXAMPLES.attachment),
    errors: [400, 404, 409, 422],
  },
  {
    hosts: ['api'],
    method: 'get',
    path: '/attachments/:id',
    operationId: 'getAttachment',
    tag: 'Attachments',
    summary: 'Get the metadata of an attachment (additive)',
    access: { scope: 'tickets:read', role: 'viewer' },
    project: 'required',
    request: { params: attachmentIdParams },
    success: single(200, 'The attachment.', 'attachment', attachmentSchema, EXAMPLES.attachment),
    errors: [400, 404],
  },
  {
    hosts: ['api'],
    method: 'delete',
    path: '/attachments/:id',
    operationId: 'deleteAttachment',
    tag: 'Attachments',
    summary: 'Delete an attachment',
    access: { scope: 'tickets:write', role: 'agent' },
    project: 'required',
    request: { params: attachmentIdParams },
    success: {
      kind: 'json',
      status: 200,
      description: 'Confirmation.',
      data: message,
      example: { message: 'Attachment deleted' },
    },
    errors: [400, 404],
  },
  {
    hosts: ['api'],
    method: 'get',
    path: '/attachments/:id/download',
    operationId: 'downloadAttachment',
    tag: 'Attachments',
    summary: 'Download the bytes of an attachment',
    description: 'Streams the file itself (no redirect, no signed URL), not the JSON envelope.',
    access: { scope: 'tickets:read', role: 'viewer' },
    project: 'required',
    request: { params: attachmentIdParams },
    success: { kind: 'file_download' },
    errors: [400, 404],
  },

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
