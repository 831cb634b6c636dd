/**
 * The webhook operations (spec "Webhooks", plus the additive delivery log): each validated by
 * webhooks.schemas.ts, then one WebhookService call, then the spec's JSON. Subscriptions belong to
 * the calling user: the service answers another user's as 404, except to admins, who manage every
 * subscription of the project (the roles table). Creation takes its project from the
 * body's project_id when the key is not project-scoped; the body's project_id must name the
 * request's project (a scoped key naming another project is 404, as project context decides).
 */
import { AppError } from '@tix/kit';
import {
  createdWebhookSchema,
  deliverySchema,
  paginationSchema,
  pingResultSchema,
  rotatedWebhookSchema,
  webhookDetailSchema,
  webhookSchema,
} from '../../resources/components.js';
import { givenFields } from '../../http/validate.js';
import { EXAMPLES } from '../../resources/examples.js';
import { confirmation, confirmed, counted, json, single } from '../../resources/responses.js';
import { z } from '../../resources/zod-openapi.js';
import { operationGroup, type Operation } from '../operation.js';
import {
  presentDelivery,
  presentPing,
  presentWebhook,
  presentWebhookDetail,
} from '../../resources/presenters/webhooks.js';
import {
  createWebhookBody,
  deliveryParams,
  listDeliveriesQuery,
  listWebhooksQuery,
  redeliverFailedBody,
  rotateSecretBody,
  updateWebhookBody,
  webhookIdParams,
} from './webhooks.schemas.js';

export const PROJECT_MISMATCH_MESSAGE = 'project_id must be the project of the request';

const webhookOperation = operationGroup({ hosts: ['api', 'app'], project: 'required', tag: 'Webhooks' });

// On the session host, webhooks are managed by admins (docs/decisions.md, "Roles, one table for
// both hosts"); keys keep the spec's scopes.
export const WEBHOOK_OPERATIONS: Operation[] = [
  webhookOperation({
    method: 'get',
    path: '/webhooks',
    access: { scope: 'tickets:read', role: 'admin' },
    request: { query: listWebhooksQuery },
    operationId: 'listWebhooks',
    summary: 'List your webhook subscriptions in the project',
    success: counted('The subscriptions.', 'webhooks', webhookSchema, EXAMPLES.webhook),
    errors: [400],
    async handle({ query, services, project, call }) {
      const listed = await services.webhooks.ListWebhooks(
        { project_id: project.id, all_owners: query.owner === 'all' },
        call,
      );
      return { data: { webhooks: listed.webhooks.map(presentWebhook), count: listed.count } };
    },
  }),

  webhookOperation({
    method: 'post',
    path: '/webhooks',
    access: { scope: 'tickets:write', role: 'admin' },
    projectFromBody: true,
    request: { body: createWebhookBody },
    bodyExample: {
      url: 'https://hooks.example.com/tix',
      events: ['ticket.created', 'comment.created'],
      project_id: 1,
    },
    operationId: 'createWebhook',
    summary: 'Subscribe a URL to events',
    success: single(
      201,
      'The subscription, with its secret.',
      'webhook',
      createdWebhookSchema,
      EXAMPLES.createdWebhook,
    ),
    errors: [400, 409, 422],
    async handle({ body, services, project, call }) {
      if (body.project_id !== project.id) {
        throw AppError.validation({ project_id: [PROJECT_MISMATCH_MESSAGE] });
      }
      const created = await services.webhooks.CreateWebhook(
        {
          project_id: project.id,
          url: body.url,
          events: body.events,
          ...(body.secret === undefined || body.secret === null ? {} : { secret: body.secret }),
        },
        call,
      );
      return { data: { webhook: presentWebhook(created) }, status: 201, location: `/webhooks/${created.id}` };
    },
  }),

  webhookOperation({
    method: 'delete',
    path: '/webhooks/:id',
    access: { scope: 'tickets:write', role: 'admin' },
    request: { params: webhookIdParams },
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook subscription',
    success: confirmation('Webhook deleted'),
    errors: [400, 404],
    handle({ params, services, project, call }) {
      return confirmed(services.webhooks.DeleteWebhook({ project_id: project.id, id: params.id }, call));
    },
  }),

  webhookOperation({
    method: 'get',
    path: '/webhooks/:id/deliveries',
    access: { scope: 'tickets:read', role: 'admin' },
    request: { params: webhookIdParams, query: listDeliveriesQuery, strictQuery: true },
    operationId: 'listWebhookDeliveries',
    summary: 'The delivery log of a webhook (additive)',
    success: json(
      200,
      'A page of deliveries, newest first.',
      z.object({ deliveries: z.array(deliverySchema), pagination: paginationSchema }),
      { deliveries: [EXAMPLES.delivery], pagination: EXAMPLES.pagination },
    ),
    errors: [400, 404],
    async handle({ params, query, services, project, call }) {
      const page = await services.webhooks.ListDeliveries(
        {
          project_id: project.id,
          webhook_id: params.id,
          page: { page: query.page, per_page: query.per_page },
          ...givenFields(query, 'status', 'event', 'since', 'until'),
        },
        call,
      );
      if (!page.pagination) throw AppError.internal('the webhook service answered a page without pagination');
      return { data: { deliveries: page.deliveries.map(presentDelivery), pagination: page.pagination } };
    },
  }),

  webhookOperation({
    method: 'post',
    path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
    access: { scope: 'tickets:write', role: 'admin' },
    request: { params: deliveryParams },
    operationId: 'redeliverWebhookDelivery',
    summary: 'Deliver an event again (additive)',
    success: json(202, 'The queued delivery.', z.object({ delivery: deliverySchema }), {
      delivery: { ...EXAMPLES.delivery, status: 'pending', attempts: [] },
    }),
    errors: [400, 404, 409, 422],
    async handle({ params, services, project, call }) {
      const queued = await services.webhooks.RedeliverDelivery(
        { project_id: project.id, webhook_id: params.id, delivery_id: params.deliveryId },
        call,
      );
      // Accepted: the new delivery is queued; its attempts follow (see its entry in the log).
      return { data: { delivery: presentDelivery(queued) }, status: 202 };
    },
  }),

  webhookOperation({
    method: 'get',
    path: '/webhooks/:id',
    access: { scope: 'tickets:read', role: 'admin' },
    request: { params: webhookIdParams },
    operationId: 'getWebhook',
    summary: 'One webhook subscription (additive)',
    success: single(200, 'The subscription.', 'webhook', webhookDetailSchema, EXAMPLES.webhookDetail),
    errors: [400, 404],
    async handle({ params, services, project, call }) {
      const found = await services.webhooks.GetWebhook({ project_id: project.id, id: params.id }, call);
      return { data: { webhook: presentWebhookDetail(found) } };
    },
  }),

  webhookOperation({
    method: 'patch',
    path: '/webhooks/:id',
    access: { scope: 'tickets:write', role: 'admin' },
    request: { params: webhookIdParams, body: updateWebhookBody },
    bodyExample: { is_active: false },
    operationId: 'updateWebhook',
    summary: 'Change, pause or resume a webhook (additive)',
    success: single(200, 'The subscription as changed.', 'webhook', webhookDetailSchema, {
      ...EXAMPLES.webhookDetail,
      is_active: false,
    }),
    errors: [400, 404, 422],
    async handle({ params, body, services, project, call }) {
      const changed = await services.webhooks.UpdateWebhook(
        {
          project_id: project.id,
          id: params.id,
          ...givenFields(body, 'url'),
          ...(body.events === undefined ? {} : { set_events: true, events: body.events }),
          ...givenFields(body, 'is_active'),
        },
        call,
      );
      return { data: { webhook: presentWebhookDetail(changed) } };
    },
  }),

  webhookOperation({
    method: 'post',
    path: '/webhooks/:id/rotate-secret',
    access: { scope: 'tickets:write', role: 'admin' },
    request: { params: webhookIdParams, body: rotateSecretBody },
    bodyExample: { overlap_seconds: 3600 },
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret (additive)',
    success: single(
      200,
      'The subscription with its new secret.',
      'webhook',
      rotatedWebhookSchema,
      EXAMPLES.rotatedWebhook,
    ),
    errors: [400, 404, 422],
    async handle({ params, body, services, project, call }) {
      const rotated = await services.webhooks.RotateWebhookSecret(
        {
          project_id: project.id,
          id: params.id,
          ...givenFields(body, 'overlap_seconds'),
        },
        call,
      );
      return { data: { webhook: { ...presentWebhookDetail(rotated), secret: rotated.secret ?? '' } } };
    },
  }),

  webhookOperation({
    method: 'post',
    path: '/webhooks/:id/ping',
    access: { scope: 'tickets:write', role: 'admin' },
    request: { params: webhookIdParams },
    operationId: 'pingWebhook',
    summary: 'Send a signed test delivery now (additive)',
    success: single(200, 'The outcome.', 'ping', pingResultSchema, EXAMPLES.ping),
    errors: [400, 404],
    async handle({ params, services, project, call }) {
      const outcome = await services.webhooks.PingWebhook({ project_id: project.id, id: params.id }, call);
      return { data: { ping: presentPing(outcome) } };
    },
  }),

  webhookOperation({
    method: 'post',
    path: '/webhooks/:id/deliveries/redeliver',
    access: { scope: 'tickets:write', role: 'admin' },
    request: { params: webhookIdParams, body: redeliverFailedBody },
    bodyExample: { since: '2026-05-02T10:11:00Z', status: 'failed' },
    operationId: 'redeliverFailedWebhookDeliveries',
    summary: 'Redeliver every failed delivery since a time (additive)',
    success: json(
      202,
      'How many were queued, and how many are left beyond this call.',
      z.object({
        queued: z.number().int().meta({ description: 'Deliveries queued now.' }),
        remaining: z
          .number()
          .int()
          .meta({ description: 'Failed deliveries left to redeliver (call again).' }),
      }),
      { queued: 12, remaining: 0 },
    ),
    errors: [400, 404, 409, 422],
    async handle({ params, body, services, project, call }) {
      const result = await services.webhooks.RedeliverFailed(
        { project_id: project.id, webhook_id: params.id, since: body.since },
        call,
      );
      return { data: { queued: result.queued, remaining: result.remaining }, status: 202 };
    },
  }),
];
