/**
 * The webhook operations (spec "Webhooks", plus the additive delivery log): each validated by
 * webhooks.schemas.ts, then one WebhookService call, then the spec's JSON. Subscriptions belong to
 * the calling user: the service answers another user's as 404, except to admins, who manage every
 * subscription of the project (the roles table). Creation takes its project from the
 * body's project_id when the key is not project-scoped; the body's project_id must name the
 * request's project (a scoped key naming another project is 404, as project context decides).
 */
import { AppError } from '@tix/kit';
import { sendData } from '../../http/envelope.js';
import { callContext, requireProject } from '../../http/request-context.js';
import {
  createdWebhookSchema,
  deliverySchema,
  paginationSchema,
  webhookSchema,
} from '../../openapi/components.js';
import { EXAMPLES } from '../../openapi/examples.js';
import { confirmation, count, json, list, single } from '../../openapi/responses.js';
import { z } from '../../openapi/zod-openapi.js';
import { requireService } from '../../services.js';
import { defineOperation, type Operation } from '../operation.js';
import { presentDelivery, presentWebhook } from './webhooks.mapping.js';
import {
  createWebhookBody,
  deliveryParams,
  listDeliveriesQuery,
  listWebhooksQuery,
  webhookIdParams,
} from './webhooks.schemas.js';

export const PROJECT_MISMATCH_MESSAGE = 'project_id must be the project of the request';

// On the session host, webhooks are managed by admins (design note §5.6); keys keep the spec's scopes.
export const WEBHOOK_OPERATIONS: Operation[] = [
  defineOperation({
    method: 'get',
    path: '/webhooks',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:read', role: 'admin' },
    project: 'required',
    request: { query: listWebhooksQuery },
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    summary: 'List your webhook subscriptions in the project',
    description:
      "Never includes `secret`. `owner=all` lists every owner's (admins, who also manage any subscription of the project by id).",
    success: json(200, 'The subscriptions.', list('webhooks', webhookSchema, { count }), {
      webhooks: [EXAMPLES.webhook],
      count: 1,
    }),
    errors: [400],
    async handle({ query }, request, response, { services }) {
      const listed = await requireService(services, 'webhooks').ListWebhooks(
        { project_id: requireProject(request).id, all_owners: query.owner === 'all' },
        callContext(request),
      );
      sendData(response, { webhooks: listed.webhooks.map(presentWebhook), count: listed.count });
    },
  }),

  defineOperation({
    method: 'post',
    path: '/webhooks',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:write', role: 'admin' },
    project: 'required',
    projectFromBody: true,
    request: { body: createWebhookBody },
    bodyExample: {
      url: 'https://hooks.example.com/tix',
      events: ['ticket.created', 'comment.created'],
      project_id: 1,
    },
    operationId: 'createWebhook',
    tag: 'Webhooks',
    summary: 'Subscribe a URL to events',
    description:
      'The response is the only time `secret` is shown. Deliveries are signed: `X-Webhook-Signature` is the ' +
      'lowercase hex HMAC-SHA256 of the raw body keyed with the secret.',
    success: single(
      201,
      'The subscription, with its secret.',
      'webhook',
      createdWebhookSchema,
      EXAMPLES.createdWebhook,
    ),
    errors: [400, 409, 422],
    async handle({ body }, request, response, { services }) {
      const project = requireProject(request);
      if (body.project_id !== project.id) {
        throw AppError.validation({ project_id: [PROJECT_MISMATCH_MESSAGE] });
      }
      const created = await requireService(services, 'webhooks').CreateWebhook(
        {
          project_id: project.id,
          url: body.url,
          events: body.events,
          ...(body.secret === undefined || body.secret === null ? {} : { secret: body.secret }),
        },
        callContext(request),
      );
      sendData(response, { webhook: presentWebhook(created) }, 201);
    },
  }),

  defineOperation({
    method: 'delete',
    path: '/webhooks/:id',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:write', role: 'admin' },
    project: 'required',
    request: { params: webhookIdParams },
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    summary: 'Delete a webhook subscription',
    description: 'No further events are delivered to it.',
    success: confirmation('Webhook deleted'),
    errors: [400, 404],
    async handle({ params }, request, response, { services }) {
      const { message } = await requireService(services, 'webhooks').DeleteWebhook(
        { project_id: requireProject(request).id, id: params.id },
        callContext(request),
      );
      sendData(response, { message });
    },
  }),

  defineOperation({
    method: 'get',
    path: '/webhooks/:id/deliveries',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:read', role: 'admin' },
    project: 'required',
    request: { params: webhookIdParams, query: listDeliveriesQuery },
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'The delivery log of a webhook (additive)',
    success: json(
      200,
      'A page of deliveries, newest first.',
      z.object({ deliveries: z.array(deliverySchema), pagination: paginationSchema }),
      { deliveries: [EXAMPLES.delivery], pagination: EXAMPLES.pagination },
    ),
    errors: [400, 404],
    async handle({ params, query }, request, response, { services }) {
      const page = await requireService(services, 'webhooks').ListDeliveries(
        {
          project_id: requireProject(request).id,
          webhook_id: params.id,
          page: { page: query.page, per_page: query.per_page },
        },
        callContext(request),
      );
      if (!page.pagination) throw AppError.internal('the webhook service answered a page without pagination');
      sendData(response, { deliveries: page.deliveries.map(presentDelivery), pagination: page.pagination });
    },
  }),

  defineOperation({
    method: 'post',
    path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:write', role: 'admin' },
    project: 'required',
    request: { params: deliveryParams },
    operationId: 'redeliverWebhookDelivery',
    tag: 'Webhooks',
    summary: 'Deliver an event again (additive)',
    description: 'Queues a new delivery of the same event; follow it in the delivery log.',
    success: json(202, 'The queued delivery.', z.object({ delivery: deliverySchema }), {
      delivery: { ...EXAMPLES.delivery, status: 'pending', attempts: [] },
    }),
    errors: [400, 404, 409, 422],
    async handle({ params }, request, response, { services }) {
      const queued = await requireService(services, 'webhooks').RedeliverDelivery(
        { project_id: requireProject(request).id, webhook_id: params.id, delivery_id: params.deliveryId },
        callContext(request),
      );
      // Accepted: the new delivery is queued; its attempts follow (see its entry in the log).
      sendData(response, { delivery: presentDelivery(queued) }, 202);
    },
  }),
];
