/**
 * The webhook operations (spec "Webhooks", plus the additive delivery log): each validated by
 * webhooks.schemas.ts, then one WebhookService call, then the spec's JSON. Subscriptions belong to
 * the calling user: the service answers another user's as 404, except to admins, who manage every
 * subscription of the project (the roles table). Creation takes its project from the
 * body's project_id when the key is not project-scoped; the body's project_id must name the
 * request's project (a scoped key naming another project is 404, as project context decides).
 */
import { AppError } from '@tix/kit';
import { MAX_BULK_REDELIVERIES } from '@tix/protos';
import { sendData, setLocation } from '../../http/envelope.js';
import { callContext, requireProject } from '../../http/request-context.js';
import {
  createdWebhookSchema,
  deliverySchema,
  paginationSchema,
  pingResultSchema,
  rotatedWebhookSchema,
  webhookDetailSchema,
  webhookSchema,
} from '../../openapi/components.js';
import { EXAMPLES } from '../../openapi/examples.js';
import { confirmation, count, json, list, single } from '../../openapi/responses.js';
import { z } from '../../openapi/zod-openapi.js';
import { requireService } from '../../services.js';
import { defineOperation, type Operation } from '../operation.js';
import { presentDelivery, presentPing, presentWebhook, presentWebhookDetail } from './webhooks.mapping.js';
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

// On the session host, webhooks are managed by admins (docs/decisions.md, "Roles, one table for
// both hosts"); keys keep the spec's scopes.
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
      setLocation(request, response, `/webhooks/${created.id}`);
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
    request: { params: webhookIdParams, query: listDeliveriesQuery, strictQuery: true },
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'The delivery log of a webhook (additive)',
    description:
      'Filter by `status`, `event` and creation time (`since` inclusive, `until` exclusive); unknown parameters ' +
      'are 400. Each delivery shows the start of the body sent and each attempt the start of the answer ' +
      '(4096 bytes, flagged when cut).',
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
          ...(query.status === undefined ? {} : { status: query.status }),
          ...(query.event === undefined ? {} : { event: query.event }),
          ...(query.since === undefined ? {} : { since: query.since }),
          ...(query.until === undefined ? {} : { until: query.until }),
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

  defineOperation({
    method: 'get',
    path: '/webhooks/:id',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:read', role: 'admin' },
    project: 'required',
    request: { params: webhookIdParams },
    operationId: 'getWebhook',
    tag: 'Webhooks',
    summary: 'One webhook subscription (additive)',
    description: 'Never includes `secret`. Yours, or any of the project for admins; otherwise 404.',
    success: single(200, 'The subscription.', 'webhook', webhookDetailSchema, EXAMPLES.webhookDetail),
    errors: [400, 404],
    async handle({ params }, request, response, { services }) {
      const found = await requireService(services, 'webhooks').GetWebhook(
        { project_id: requireProject(request).id, id: params.id },
        callContext(request),
      );
      sendData(response, { webhook: presentWebhookDetail(found) });
    },
  }),

  defineOperation({
    method: 'patch',
    path: '/webhooks/:id',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:write', role: 'admin' },
    project: 'required',
    request: { params: webhookIdParams, body: updateWebhookBody },
    bodyExample: { is_active: false },
    operationId: 'updateWebhook',
    tag: 'Webhooks',
    summary: 'Change, pause or resume a webhook (additive)',
    description:
      'Any of `url`, `events` (replaces the list) and `is_active`, validated as on create (the URL by the same ' +
      'target policy); none of them is 422. `is_active: false` pauses: pending deliveries end as failed and events ' +
      'while paused are not queued (catch up from GET /events, or redeliver the failed ones after resuming). ' +
      '`is_active: true` resumes.',
    success: single(200, 'The subscription as changed.', 'webhook', webhookDetailSchema, {
      ...EXAMPLES.webhookDetail,
      is_active: false,
    }),
    errors: [400, 404, 422],
    async handle({ params, body }, request, response, { services }) {
      const changed = await requireService(services, 'webhooks').UpdateWebhook(
        {
          project_id: requireProject(request).id,
          id: params.id,
          ...(body.url === undefined ? {} : { url: body.url }),
          ...(body.events === undefined ? {} : { set_events: true, events: body.events }),
          ...(body.is_active === undefined ? {} : { is_active: body.is_active }),
        },
        callContext(request),
      );
      sendData(response, { webhook: presentWebhookDetail(changed) });
    },
  }),

  defineOperation({
    method: 'post',
    path: '/webhooks/:id/rotate-secret',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:write', role: 'admin' },
    project: 'required',
    request: { params: webhookIdParams, body: rotateSecretBody },
    bodyExample: { overlap_seconds: 3600 },
    operationId: 'rotateWebhookSecret',
    tag: 'Webhooks',
    summary: 'Rotate the signing secret (additive)',
    description:
      'Generates a new secret, shown only in this response. `X-Webhook-Signature` uses the new secret at once; ' +
      'during the overlap (`overlap_seconds`, default 86400, at most 604800) `webhook-signature` carries two ' +
      'signatures, `v1,<new> v1,<previous>`, so a Standard Webhooks receiver switches without losing a delivery.',
    success: single(
      200,
      'The subscription with its new secret.',
      'webhook',
      rotatedWebhookSchema,
      EXAMPLES.rotatedWebhook,
    ),
    errors: [400, 404, 422],
    async handle({ params, body }, request, response, { services }) {
      const rotated = await requireService(services, 'webhooks').RotateWebhookSecret(
        {
          project_id: requireProject(request).id,
          id: params.id,
          ...(body.overlap_seconds === undefined ? {} : { overlap_seconds: body.overlap_seconds }),
        },
        callContext(request),
      );
      sendData(response, { webhook: { ...presentWebhookDetail(rotated), secret: rotated.secret ?? '' } });
    },
  }),

  defineOperation({
    method: 'post',
    path: '/webhooks/:id/ping',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:write', role: 'admin' },
    project: 'required',
    request: { params: webhookIdParams },
    operationId: 'pingWebhook',
    tag: 'Webhooks',
    summary: 'Send a signed test delivery now (additive)',
    description:
      'POSTs `{ event: "ping", timestamp, data: { webhook_id, project_id } }` to the URL, signed and sent like every ' +
      'delivery (same headers, target policy and timeout; one attempt), also to a paused webhook, and answers what ' +
      'happened. 200 whatever the receiver answered (see `ok`); not recorded in the delivery log.',
    success: single(200, 'The outcome.', 'ping', pingResultSchema, EXAMPLES.ping),
    errors: [400, 404],
    async handle({ params }, request, response, { services }) {
      const outcome = await requireService(services, 'webhooks').PingWebhook(
        { project_id: requireProject(request).id, id: params.id },
        callContext(request),
      );
      sendData(response, { ping: presentPing(outcome) });
    },
  }),

  defineOperation({
    method: 'post',
    path: '/webhooks/:id/deliveries/redeliver',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:write', role: 'admin' },
    project: 'required',
    request: { params: webhookIdParams, body: redeliverFailedBody },
    bodyExample: { since: '2026-05-02T10:11:00Z', status: 'failed' },
    operationId: 'redeliverFailedWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'Redeliver every failed delivery since a time (additive)',
    description:
      'Queues a new delivery for each failed delivery created at or after `since` that is the latest of its event ' +
      '(an event already redelivered is not queued twice), oldest first, ' +
      `at most ${MAX_BULK_REDELIVERIES} per call: \`remaining\` > 0 means call again. ` +
      '409 while the webhook is paused.',
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
    async handle({ params, body }, request, response, { services }) {
      const result = await requireService(services, 'webhooks').RedeliverFailed(
        { project_id: requireProject(request).id, webhook_id: params.id, since: body.since },
        callContext(request),
      );
      sendData(response, { queued: result.queued, remaining: result.remaining }, 202);
    },
  }),
];
