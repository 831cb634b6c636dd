/**
 * Every operation the gateway serves, described once: where it is served (host role, method, the
 * express path as registered), who may call it, the very zod schemas its route validates with,
 * what it answers. document.ts turns this table into the OpenAPI document; the route coverage test
 * walks the real routers and checks both ways that this table and the served routes agree, down to
 * the schema objects.
 */
import type { z } from 'zod';
import type { Scope } from '@tix/protos';
import type { RequestSchemas } from '../http/validate.js';
import { LoginBody } from '../routes/app/auth.js';
import { docsAssetParams } from './docs-page.js';
import { attachmentIdParams } from '../routes/v1/attachments.schemas.js';
import { boardQuery } from '../routes/v1/board.schemas.js';
import {
  commentIdParams,
  createCommentBody,
  listCommentsQuery,
  updateCommentBody,
} from '../routes/v1/comments.schemas.js';
import { bulkUpdateBody, mergeTicketBody, moveTicketBody } from '../routes/v1/ticket-actions.schemas.js';
import {
  createTicketBody,
  listTicketsQuery,
  ticketIdParams,
  updateTicketBody,
} from '../routes/v1/tickets.schemas.js';
import {
  createWebhookBody,
  deliveryParams,
  listDeliveriesQuery,
  webhookIdParams,
} from '../routes/v1/webhooks.schemas.js';
import {
  attachmentSchema,
  boardSchema,
  commentSchema,
  createdWebhookSchema,
  deliverySchema,
  paginationSchema,
  projectSchema,
  ticketSchema,
  ticketTypeSchema,
  userSchema,
  webhookSchema,
} from './components.js';
import { EXAMPLES } from './examples.js';
import { z as zod } from './zod-openapi.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Who may call an operation. */
export type OperationAuth =
  /** API host: a valid API key with `scope` (null: any valid key). */
  | { kind: 'api_key'; scope: Scope | null }
  /** App host: the session cookie; `csrf` for state-changing methods; `signedIn` when a user must be. */
  | { kind: 'session'; csrf: boolean; signedIn: boolean }
  /** App host, no credentials at all (the API description and its page). */
  | { kind: 'public' };

/** What a successful call answers. */
export type OperationSuccess =
  | { kind: 'json'; status: number; description: string; data: z.ZodType; example: unknown }
  | { kind: 'file_download' }
  | { kind: 'openapi_document' }
  | { kind: 'docs_page' }
  | { kind: 'docs_asset' };

/** A success answering one named object, `data: { <key>: <object> }` (most operations). */
function single(
  status: number,
  description: string,
  key: string,
  schema: z.ZodType,
  example: unknown,
): OperationSuccess {
  return {
    kind: 'json',
    status,
    description,
    data: zod.object({ [key]: schema }),
    example: { [key]: example },
  };
}

export interface OperationSpec {
  host: 'api' | 'app';
  method: HttpMethod;
  /** The express path, relative to the host's prefix (/v1 or /api), e.g. `/tickets/:id`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  auth: OperationAuth;
  /** Project context (spec "Project context (shared)"): from the key or the query, or also the body. */
  projectContext?: 'query' | 'query_or_body';
  /** The schemas the route's validation middleware applies (the same objects; none when it has none). */
  validated?: RequestSchemas;
  /** The JSON body, when the route parses it itself (login); otherwise validated.body is documented. */
  ownBody?: z.ZodType;
  /** Example request body (every JSON body has one). */
  bodyExample?: unknown;
  /** A multipart/form-data upload with one file in this form field. */
  multipartFileField?: string;
  success: OperationSuccess;
  /** Error statuses this operation can answer beyond the common ones (document.ts adds those). */
  errors: number[];
}

const api = (scope: Scope | null): OperationAuth => ({ kind: 'api_key', scope });
const list = <T extends z.ZodType>(key: string, item: T, extra: Record<string, z.ZodType> = {}) =>
  zod.object({ [key]: zod.array(item), ...extra });
const count = zod.number().int().meta({ description: 'Number of items in the list.' });
const message = zod.object({ message: zod.string().meta({ description: 'What was done.' }) });

export const TAGS = [
  { name: 'Lookups', description: 'Projects, ticket types and users, to look up identifiers.' },
  { name: 'Tickets', description: 'Tickets: list, search, create, update, move, bulk-update, merge.' },
  { name: 'Board', description: 'Tickets grouped by status lane.' },
  { name: 'Comments', description: 'Internal notes and customer-visible comments on tickets.' },
  { name: 'Attachments', description: 'Files on tickets (multipart upload, streamed download).' },
  { name: 'Webhooks', description: 'Signed HTTP notifications, and their delivery log.' },
  { name: 'Session', description: 'Browser sessions on the app host (cookie + CSRF token).' },
  { name: 'API description', description: 'This document and its reference page.' },
] as const;

/** The operations of the API host (/v1), in reading order. */
export const API_OPERATIONS: OperationSpec[] = [
  // ---- lookups -----------------------------------------------------------------------------------
  {
    host: 'api',
    method: 'get',
    path: '/projects',
    operationId: 'listProjects',
    tag: 'Lookups',
    summary: 'List projects',
    description: 'Any valid key; a project-scoped key sees only its own project.',
    auth: api(null),
    success: {
      kind: 'json',
      status: 200,
      description: 'The projects the key can see.',
      data: list('projects', projectSchema, { count }),
      example: { projects: [EXAMPLES.project], count: 1 },
    },
    errors: [],
  },
  {
    host: 'api',
    method: 'get',
    path: '/ticket-types',
    operationId: 'listTicketTypes',
    tag: 'Lookups',
    summary: 'List the ticket types of the project',
    auth: api('tickets:read'),
    projectContext: 'query',
    success: {
      kind: 'json',
      status: 200,
      description: 'The ticket types, with their custom-field schemas.',
      data: list('ticket_types', ticketTypeSchema, { count }),
      example: { ticket_types: [EXAMPLES.ticketType], count: 1 },
    },
    errors: [400],
  },
  {
    host: 'api',
    method: 'get',
    path: '/users',
    operationId: 'listUsers',
    tag: 'Lookups',
    summary: 'List users',
    description: 'Every user, to look up assignee ids. No project needed.',
    auth: api('tickets:read'),
    success: {
      kind: 'json',
      status: 200,
      description: 'The users.',
      data: list('users', userSchema, { count }),
      example: { users: [EXAMPLES.user], count: 1 },
    },
    errors: [],
  },

  // ---- tickets -----------------------------------------------------------------------------------
  {
    host: 'api',
    method: 'get',
    path: '/tickets',
    operationId: 'listTickets',
    tag: 'Tickets',
    summary: 'List or search tickets',
    description:
      'Paginated list with filters. With `q`, every match is returned (streamed) and `pagination` is absent.',
    auth: api('tickets:read'),
    projectContext: 'query',
    validated: { query: listTicketsQuery },
    success: {
      kind: 'json',
      status: 200,
      description: 'A page of tickets (all matches with `q`).',
      data: zod.object({
        tickets: zod.array(ticketSchema),
        pagination: paginationSchema.optional(),
      }),
      example: { tickets: [EXAMPLES.ticket], pagination: EXAMPLES.pagination },
    },
    errors: [400],
  },
  {
    host: 'api',
    method: 'post',
    path: '/tickets',
    operationId: 'createTicket',
    tag: 'Tickets',
    summary: 'Create a ticket',
    description:
      'Body `project_id` counts only when the key is not project-scoped and no `project_id` query parameter is given.',
    auth: api('tickets:write'),
    projectContext: 'query_or_body',
    validated: { body: createTicketBody },
    bodyExample: {
      ticket_type_id: 1,
      title: 'Printer on fire',
      description: 'It started after the update.',
      priority: 'high',
      assigned_to: 7,
      custom_fields: { severity: 'high' },
      tags: ['billing'],
    },
    success: single(201, 'The created ticket.', 'ticket', ticketSchema, EXAMPLES.ticket),
    errors: [400, 409, 422],
  },
  {
    host: 'api',
    method: 'post',
    path: '/tickets/bulk-update',
    operationId: 'bulkUpdateTickets',
    tag: 'Tickets',
    summary: 'Update many tickets at once',
    description: 'Per-ticket success or failure is reported; `status` is one of the four default statuses.',
    auth: api('tickets:write'),
    projectContext: 'query',
    validated: { body: bulkUpdateBody },
    bodyExample: { ticket_ids: [42, 43], status: 'closed', priority: 'low' },
    success: {
      kind: 'json',
      status: 200,
      description: 'What was updated and what failed.',
      data: zod.object({
        success_count: zod.number().int(),
        failed_count: zod.number().int(),
        failed_ids: zod.array(zod.number().int()),
        tickets: zod.array(ticketSchema).meta({ description: 'The updated tickets.' }),
      }),
      example: { success_count: 1, failed_count: 1, failed_ids: [43], tickets: [EXAMPLES.ticket] },
    },
    errors: [400, 409, 422],
  },
  {
    host: 'api',
    method: 'get',
    path: '/tickets/:id',
    operationId: 'getTicket',
    tag: 'Tickets',
    summary: 'Get a ticket',
    auth: api('tickets:read'),
    projectContext: 'query',
    validated: { params: ticketIdParams },
    success: single(200, 'The ticket.', 'ticket', ticketSchema, EXAMPLES.ticket),
    errors: [400, 404],
  },
  {
    host: 'api',
    method: 'put',
    path: '/tickets/:id',
    operationId: 'updateTicket',
    tag: 'Tickets',
    summary: 'Update a ticket',
    description:
      'Only the given fields change. With `version`, a ticket modified since answers 409 ' +
      '(`Ticket was modified by another user`): re-fetch, re-apply, retry.',
    auth: api('tickets:write'),
    projectContext: 'query',
    validated: { params: ticketIdParams, body: updateTicketBody },
    bodyExample: { title: 'Printer on fire (3rd floor)', status: 'waiting', version: 2 },
    success: single(200, 'The updated ticket.', 'ticket', ticketSchema, EXAMPLES.ticket),
    errors: [400, 404, 409, 422],
  },
  {
    host: 'api',
    method: 'delete',
    path: '/tickets/:id',
    operationId: 'deleteTicket',
    tag: 'Tickets',
    summary: 'Delete a ticket (soft delete)',
    auth: api('tickets:delete'),
    projectContext: 'query',
    validated: { params: ticketIdParams },
    success: {
      kind: 'json',
      status: 200,
      description: 'Confirmation.',
      data: message,
      example: { message: 'Ticket deleted' },
    },
    errors: [400, 404, 409],
  },
  {
    host: 'api',
    method: 'patch',
    path: '/tickets/:id/status',
    operationId: 'moveTicket',
    tag: 'Tickets',
    summary: 'Move a ticket to a status lane',
    description:
      'Optionally placed after or before a ticket of the target lane; `resolution_type` only when moving to a closed status.',
    auth: api('tickets:write'),
    projectContext: 'query',
    validated: { params: ticketIdParams, body: moveTicketBody },
    bodyExample: { status: 'closed', after_id: 12, resolution_type: 'resolved' },
    success: single(200, 'The moved ticket.', 'ticket', ticketSchema, EXAMPLES.ticket),
    errors: [400, 404, 409, 422],
  },
  {
    host: 'api',
    method: 'post',
    path: '/tickets/:id/merge',
    operationId: 'mergeTicket',
    tag: 'Tickets',
    summary: 'Merge a ticket into another (additive)',
    description: 'Closes this ticket as a duplicate of `target_id`; it then carries `merged_into`.',
    auth: api('tickets:write'),
    projectContext: 'query',
    validated: { params: ticketIdParams, body: mergeTicketBody },
    bodyExample: { target_id: 42 },
    success: single(200, 'The merged ticket.', 'ticket', ticketSchema, EXAMPLES.mergedTicket),
    errors: [400, 404, 409, 422],
  },
  {
    host: 'api',
    method: 'post',
    path: '/tickets/:id/restore',
    operationId: 'restoreTicket',
    tag: 'Tickets',
    summary: 'Restore a deleted ticket (additive)',
    auth: api('tickets:write'),
    projectContext: 'query',
    validated: { params: ticketIdParams },
    success: single(200, 'The restored ticket.', 'ticket', ticketSchema, EXAMPLES.ticket),
    errors: [400, 404, 409],
  },

  // ---- board -------------------------------------------------------------------------------------
  {
    host: 'api',
    method: 'get',
    path: '/board',
    operationId: 'getBoard',
    tag: 'Board',
    summary: 'The board: tickets by status lane',
    description:
      "Lane keys are the project's statuses in workflow order; iterate them, do not hard-code them.",
    auth: api('tickets:read'),
    projectContext: 'query',
    validated: { query: boardQuery },
    success: {
      kind: 'json',
      status: 200,
      description: 'Lanes and exact counts.',
      data: boardSchema,
      example: {
        lanes: { open: [EXAMPLES.ticket], work_in_progress: [], waiting: [], closed: [] },
        counts: { open: 1, work_in_progress: 0, waiting: 0, closed: 0, total: 1 },
      },
    },
    errors: [400],
  },

  // ---- comments ----------------------------------------------------------------------------------
  {
    host: 'api',
    method: 'get',
    path: '/tickets/:id/comments',
    operationId: 'listComments',
    tag: 'Comments',
    summary: 'List the comments of a ticket',
    description: 'Oldest first; at most the oldest 1000. The path `id` is the ticket id.',
    auth: api('comments:read'),
    projectContext: 'query',
    validated: { params: ticketIdParams, query: listCommentsQuery },
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
    host: 'api',
    method: 'post',
    path: '/tickets/:id/comments',
    operationId: 'createComment',
    tag: 'Comments',
    summary: 'Comment on a ticket',
    description: 'Internal (team-only) by default. The path `id` is the ticket id.',
    auth: api('comments:write'),
    projectContext: 'query',
    validated: { params: ticketIdParams, body: createCommentBody },
    bodyExample: { content: 'Restarted the printer; please try again.', is_internal: false },
    success: single(201, 'The created comment.', 'comment', commentSchema, EXAMPLES.comment),
    errors: [400, 404, 409, 422],
  },
  {
    host: 'api',
    method: 'get',
    path: '/comments/:id',
    operationId: 'getComment',
    tag: 'Comments',
    summary: 'Get a comment',
    auth: api('comments:read'),
    projectContext: 'query',
    validated: { params: commentIdParams },
    success: single(200, 'The comment.', 'comment', commentSchema, EXAMPLES.comment),
    errors: [400, 404],
  },
  {
    host: 'api',
    method: 'put',
    path: '/comments/:id',
    operationId: 'updateComment',
    tag: 'Comments',
    summary: 'Edit a comment',
    description:
      'Only the author or team leads and above; a public comment cannot become internal. Only given fields change.',
    auth: api('comments:write'),
    projectContext: 'query',
    validated: { params: commentIdParams, body: updateCommentBody },
    bodyExample: { content: 'Restarted the printer twice; please try again.' },
    success: single(200, 'The edited comment.', 'comment', commentSchema, EXAMPLES.comment),
    errors: [400, 403, 404, 409, 422],
  },
  {
    host: 'api',
    method: 'delete',
    path: '/comments/:id',
    operationId: 'deleteComment',
    tag: 'Comments',
    summary: 'Delete a comment',
    description: 'Only the author or admins.',
    auth: api('comments:write'),
    projectContext: 'query',
    validated: { params: commentIdParams },
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
    host: 'api',
    method: 'get',
    path: '/tickets/:id/attachments',
    operationId: 'listAttachments',
    tag: 'Attachments',
    summary: 'List the attachments of a ticket',
    description: 'The path `id` is the ticket id.',
    auth: api('tickets:read'),
    projectContext: 'query',
    validated: { params: ticketIdParams },
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
    host: 'api',
    method: 'post',
    path: '/tickets/:id/attachments',
    operationId: 'uploadAttachment',
    tag: 'Attachments',
    summary: 'Upload a file to a ticket',
    description:
      '`multipart/form-data` with exactly one file in the form field `file`; streamed. Too large or an ' +
      'unsupported type answers 422 on `file`. The path `id` is the ticket id.',
    auth: api('tickets:write'),
    projectContext: 'query',
    validated: { params: ticketIdParams },
    multipartFileField: 'file',
    success: single(201, 'The stored attachment.', 'attachment', attachmentSchema, EXAMPLES.attachment),
    errors: [400, 404, 409, 422],
  },
  {
    host: 'api',
    method: 'get',
    path: '/attachments/:id',
    operationId: 'getAttachment',
    tag: 'Attachments',
    summary: 'Get the metadata of an attachment (additive)',
    auth: api('tickets:read'),
    projectContext: 'query',
    validated: { params: attachmentIdParams },
    success: single(200, 'The attachment.', 'attachment', attachmentSchema, EXAMPLES.attachment),
    errors: [400, 404],
  },
  {
    host: 'api',
    method: 'delete',
    path: '/attachments/:id',
    operationId: 'deleteAttachment',
    tag: 'Attachments',
    summary: 'Delete an attachment',
    auth: api('tickets:write'),
    projectContext: 'query',
    validated: { params: attachmentIdParams },
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
    host: 'api',
    method: 'get',
    path: '/attachments/:id/download',
    operationId: 'downloadAttachment',
    tag: 'Attachments',
    summary: 'Download the bytes of an attachment',
    description: 'Streams the file itself (no redirect, no signed URL), not the JSON envelope.',
    auth: api('tickets:read'),
    projectContext: 'query',
    validated: { params: attachmentIdParams },
    success: { kind: 'file_download' },
    errors: [400, 404],
  },

  // ---- webhooks ----------------------------------------------------------------------------------
  {
    host: 'api',
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    summary: 'List your webhook subscriptions in the project',
    description: 'Never includes `secret`.',
    auth: api('tickets:read'),
    projectContext: 'query',
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
    host: 'api',
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    tag: 'Webhooks',
    summary: 'Subscribe a URL to events',
    description:
      'The response is the only time `secret` is shown. Deliveries are signed: `X-Webhook-Signature` is the ' +
      'lowercase hex HMAC-SHA256 of the raw body keyed with the secret.',
    auth: api('tickets:write'),
    projectContext: 'query_or_body',
    validated: { body: createWebhookBody },
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
    host: 'api',
    method: 'delete',
    path: '/webhooks/:id',
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    summary: 'Delete a webhook subscription',
    description: 'No further events are delivered to it.',
    auth: api('tickets:write'),
    projectContext: 'query',
    validated: { params: webhookIdParams },
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
    host: 'api',
    method: 'get',
    path: '/webhooks/:id/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'The delivery log of a webhook (additive)',
    auth: api('tickets:read'),
    projectContext: 'query',
    validated: { params: webhookIdParams, query: listDeliveriesQuery },
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
    host: 'api',
    method: 'post',
    path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
    operationId: 'redeliverWebhookDelivery',
    tag: 'Webhooks',
    summary: 'Deliver an event again (additive)',
    description: 'Queues a new delivery of the same event; follow it in the delivery log.',
    auth: api('tickets:write'),
    projectContext: 'query',
    validated: { params: deliveryParams },
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
export const APP_OPERATIONS: OperationSpec[] = [
  {
    host: 'app',
    method: 'get',
    path: '/csrf-token',
    operationId: 'getCsrfToken',
    tag: 'Session',
    summary: 'Get the CSRF token of the session (starting one)',
    description:
      'Sets the session cookie when there is no session yet. Send the token as `X-CSRF-Token` on POST, PUT, PATCH and DELETE.',
    auth: { kind: 'session', csrf: false, signedIn: false },
    success: {
      kind: 'json',
      status: 200,
      description: 'The token (also in the `X-CSRF-Token` header).',
      data: zod.object({ token: zod.string() }),
      example: { token: EXAMPLES.csrfToken },
    },
    errors: [],
  },
  {
    host: 'app',
    method: 'post',
    path: '/auth/login',
    operationId: 'login',
    tag: 'Session',
    summary: 'Sign in with email and password',
    description: 'Replaces the session (new cookie and CSRF token).',
    auth: { kind: 'session', csrf: true, signedIn: false },
    ownBody: LoginBody,
    bodyExample: { email: 'ada@example.com', password: 'correct horse battery staple' },
    success: {
      kind: 'json',
      status: 200,
      description: 'The signed-in user and the new CSRF token.',
      data: zod.object({ user: userSchema, csrf_token: zod.string() }),
      example: { user: EXAMPLES.user, csrf_token: EXAMPLES.csrfToken },
    },
    errors: [400, 401, 422],
  },
  {
    host: 'app',
    method: 'post',
    path: '/auth/logout',
    operationId: 'logout',
    tag: 'Session',
    summary: 'Sign out',
    auth: { kind: 'session', csrf: true, signedIn: false },
    success: {
      kind: 'json',
      status: 200,
      description: 'Confirmation; the session cookie is cleared.',
      data: message,
      example: { message: 'Signed out' },
    },
    errors: [],
  },
  {
    host: 'app',
    method: 'get',
    path: '/auth/me',
    operationId: 'getSignedInUser',
    tag: 'Session',
    summary: 'The signed-in user',
    auth: { kind: 'session', csrf: false, signedIn: true },
    success: single(200, 'The user.', 'user', userSchema, EXAMPLES.user),
    errors: [],
  },
  {
    host: 'app',
    method: 'get',
    path: '/openapi',
    operationId: 'getOpenApiDocument',
    tag: 'API description',
    summary: 'This OpenAPI 3.1 document',
    description: 'Plain JSON (not in the envelope): the document is a resource of its own. No credentials.',
    auth: { kind: 'public' },
    success: { kind: 'openapi_document' },
    errors: [],
  },
  {
    host: 'app',
    method: 'get',
    path: '/docs',
    operationId: 'getApiReferencePage',
    tag: 'API description',
    summary: 'The API reference page (HTML)',
    auth: { kind: 'public' },
    success: { kind: 'docs_page' },
    errors: [],
  },
  {
    host: 'app',
    method: 'get',
    path: '/docs/:asset',
    operationId: 'getApiReferenceAsset',
    tag: 'API description',
    summary: 'A static file of the reference page',
    auth: { kind: 'public' },
    validated: { params: docsAssetParams },
    success: { kind: 'docs_asset' },
    errors: [404],
  },
];

export const OPERATIONS: readonly OperationSpec[] = [...API_OPERATIONS, ...APP_OPERATIONS];

/** `/tickets/:id` -> `/tickets/{id}`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The JSON body schema of an operation, if it takes one. */
export function jsonBodyOf(operation: OperationSpec): z.ZodType | undefined {
  return operation.ownBody ?? operation.validated?.body;
}
