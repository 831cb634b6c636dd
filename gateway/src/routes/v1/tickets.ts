/**
 * The ticket operations (spec "Tickets", plus the additive merge and restore): each validated by
 * tickets.schemas.ts and ticket-actions.schemas.ts, then one TicketService call, then the spec's
 * JSON. Domain rules (statuses of the project for writes, versions, placement, custom fields) live
 * in the ticket service; its errors pass through unchanged.
 */
import { AppError } from '@tix/kit';
import type { ticket, TicketJson } from '@tix/protos';
import { expectedTicketVersion, ticketEtag } from '../../http/conditional.js';
import { arrayElements, dataStream } from '../../http/envelope.js';
import type { ListLinks } from '../../http/links.js';
import type { ProjectContext } from '../../http/request-context.js';
import { invalidQuery } from '../../http/validate.js';
import { holdsScope, missingScopeMessage } from '../../middleware/require-access.js';
import { paginationSchema, ticketSchema } from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { confirmation, confirmed, json, linked, tagged } from '../../resources/responses.js';
import { z } from '../../resources/zod-openapi.js';
import type { OutgoingContext } from '@tix/kit';
import type { Principal } from '@tix/protos';
import type { RequiredServices } from '../../services.js';
import { operationGroup, type Answer, type Operation } from '../operation.js';
import { resolveTicketPeople } from './ticket-people.js';
import {
  bulkUpdateRequest,
  createTicketRequest,
  listTicketsRequest,
  moveTicketRequest,
  presentBulkResult,
  presentTicketCursorPage,
  presentTicketPage,
  searchTicketsRequest,
  ticketOf,
  updateTicketRequest,
} from './tickets.mapping.js';
import { bulkUpdateBody, mergeTicketBody, moveTicketBody } from './ticket-actions.schemas.js';
import {
  createTicketBody,
  CURSOR_WITH_PAGE_MESSAGE,
  CURSOR_WITH_Q_MESSAGE,
  listTicketsQuery,
  ticketIdParams,
  type ListTicketsQuery,
  updateTicketBody,
} from './tickets.schemas.js';

/** A search streams every match; it may take longer than a single call's default deadline. */
const SEARCH_DEADLINE_MS = 60_000;

/**
 * The list filter `status` must name a status of the project (400 otherwise). The project, with its
 * workflow, is already resolved (and cached), so this costs no call.
 */
export function checkStatusFilter(project: ProjectContext, status: string | undefined): void {
  if (status === undefined || project.statuses.some((candidate) => candidate.slug === status)) return;
  const slugs = project.statuses.map((candidate) => candidate.slug).join(', ');
  throw invalidQuery({ status: [`status must be a status of the project: ${slugs}`] });
}

/**
 * `Link` to the list's neighbouring pages (http/links.ts): this request's own URL on its host, with
 * its other parameters as given and only the position (`page` or `cursor`) replaced.
 */
function listLinks(
  path: string,
  given: URLSearchParams,
  links: Partial<Record<keyof ListLinks, { page: string } | { cursor: string }>>,
): ListLinks {
  const others = new URLSearchParams(given);
  others.delete('page');
  others.delete('cursor');
  return Object.fromEntries(
    Object.entries(links).map(([rel, position]) => {
      const parameters = new URLSearchParams(others);
      for (const [name, value] of Object.entries(position)) parameters.set(name, value);
      return [rel, `${path}?${parameters.toString()}`];
    }),
  );
}

/** `Link` to the numbered pages around `pagination` of the list at `path` (spec Pagination). */
export function pageLinks(
  path: string,
  given: URLSearchParams,
  pagination: { page: number; total_pages: number },
): ListLinks {
  const { page: number, total_pages: last } = pagination;
  return listLinks(path, given, {
    ...(number < last ? { next: { page: String(number + 1) } } : {}),
    ...(number > 1 ? { prev: { page: String(Math.min(number - 1, Math.max(last, 1))) } } : {}),
    first: { page: '1' },
    ...(last > 0 ? { last: { page: String(last) } } : {}),
  });
}

/** What a ticket list needs of its handler's input (GET /tickets, GET /customers/{id}/tickets). */
export interface TicketListInput {
  query: ListTicketsQuery;
  given: URLSearchParams;
  services: RequiredServices;
  project: ProjectContext;
  principal: Principal;
  call: OutgoingContext;
}

/**
 * A list of the project's tickets as GET /tickets answers it (a page, a cursor page, or every match
 * of `q`), its `Link`s naming `path` on this host.
 */
export async function listTickets(
  { query, given, services, project, principal, call }: TicketListInput,
  path: string,
): Promise<Answer> {
  checkStatusFilter(project, query.status);
  if (query.cursor !== undefined) {
    // `page` has a default, so only the query as sent tells whether it was given.
    if (given.has('page')) throw invalidQuery({ cursor: [CURSOR_WITH_PAGE_MESSAGE] });
    if (query.q !== undefined) throw invalidQuery({ cursor: [CURSOR_WITH_Q_MESSAGE] });
  }
  // Deleted tickets are for whoever may delete (and so restore) them.
  if (query.deleted === 'only' && !holdsScope(principal, 'tickets:delete'))
    throw AppError.permissionDenied(missingScopeMessage('tickets:delete'));
  const tickets = services.tickets;
  if (query.cursor !== undefined) {
    const page = presentTicketCursorPage(
      await tickets.ListTickets(listTicketsRequest(project.id, query), call),
    );
    const links = listLinks(path, given, {
      ...(page.next_cursor === null ? {} : { next: { cursor: page.next_cursor } }),
      first: { cursor: '' },
    });
    return { spliced: page, links };
  }
  if (query.q !== undefined) {
    // Spec: with q, every match and no pagination; streamed, however many there are.
    // Batches of the service's cursor, already the API's JSON: written out as they come.
    const batches = tickets.SearchTicketsJson(searchTicketsRequest(project.id, { ...query, q: query.q }), {
      ...call,
      deadlineMs: SEARCH_DEADLINE_MS,
    });
    return {
      stream: dataStream('tickets', batches, {
        elements: (batch) => arrayElements(batch.tickets_json),
      }),
    };
  }
  const page = presentTicketPage(await tickets.ListTickets(listTicketsRequest(project.id, query), call));
  return { spliced: page, links: pageLinks(path, given, page.pagination) };
}

/** One ticket with its strong ETag (from its version): what a read or write of one ticket answers. */
function ticketAnswer(answer: ticket.ApiTicket__Output) {
  return { data: { ticket: ticketOf(answer) }, etag: ticketEtag(answer) };
}

/**
 * A write of ticket `id` that holds only at the version If-Match names (http/conditional.ts
 * expectedTicketVersion); without If-Match, at any version.
 */
function atIfMatchVersion<Request>(request: Request, ifMatch: string | undefined, id: number) {
  return { ...request, expected_version: expectedTicketVersion(ifMatch, id) };
}

/** The success of an operation answering one ticket, `data: { ticket }` with its ETag. */
function oneTicket(description: string, example: TicketJson = EXAMPLES.ticket, status = 200) {
  return tagged(status, description, 'ticket', ticketSchema, example);
}

const ticketOperation = operationGroup({ hosts: ['api', 'app'], project: 'required', tag: 'Tickets' });

export const TICKET_OPERATIONS: Operation[] = [
  ticketOperation({
    method: 'get',
    path: '/tickets',
    access: { scope: 'tickets:read', role: 'viewer' },
    request: { query: listTicketsQuery, strictQuery: true },
    operationId: 'listTickets',
    summary: 'List or search tickets',
    success: linked(
      json(
        200,
        'A page of tickets (all matches with `q`); in cursor mode, `next_cursor` instead of `pagination`.',
        z.object({
          tickets: z.array(ticketSchema),
          pagination: paginationSchema.optional(),
          next_cursor: z
            .string()
            .nullable()
            .meta({
              description:
                'Cursor mode only: pass as `cursor` for the next page (the `next` link); null on the last page.',
            })
            .optional(),
        }),
        { tickets: [EXAMPLES.ticket], pagination: EXAMPLES.pagination },
      ),
    ),
    errors: [400, 403],
    handle(input) {
      return listTickets(input, '/tickets');
    },
  }),

  ticketOperation({
    method: 'post',
    path: '/tickets',
    access: { scope: 'tickets:write', role: 'agent' },
    projectFromBody: true,
    request: { body: createTicketBody },
    bodyExample: {
      ticket_type_id: 1,
      title: 'Printer on fire',
      description: 'It started after the update.',
      priority: 'high',
      assigned_to: 7,
      custom_fields: { severity: 'high' },
      tags: ['billing'],
      requester: { email: 'grace@example.com', name: 'Grace Hopper' },
      cc_emails: ['ada@example.com'],
    },
    operationId: 'createTicket',
    summary: 'Create a ticket',
    success: oneTicket('The created ticket.', EXAMPLES.ticket, 201),
    errors: [400, 409, 422],
    async handle({ body, services, project, call }) {
      const people = await resolveTicketPeople(body, services, call);
      const created = await services.tickets.CreateTicket(
        createTicketRequest(project.id, body, people),
        call,
      );
      return { ...ticketAnswer(created), status: 201, location: `/tickets/${created.id}` };
    },
  }),

  // Mounted before /tickets/:id, so that `bulk-update` is a path of its own (GET on it is 405, not an id).
  ticketOperation({
    method: 'post',
    path: '/tickets/bulk-update',
    access: { scope: 'tickets:write', role: 'agent' },
    request: { body: bulkUpdateBody },
    bodyExample: { ticket_ids: [42, 43], status: 'closed', priority: 'low' },
    operationId: 'bulkUpdateTickets',
    summary: 'Update many tickets at once',
    success: json(
      200,
      'What was updated and what failed.',
      z.object({
        success_count: z.number().int(),
        failed_count: z.number().int(),
        failed_ids: z.array(z.number().int()),
        tickets: z.array(ticketSchema).meta({ description: 'The updated tickets.' }),
      }),
      { success_count: 1, failed_count: 1, failed_ids: [43], tickets: [EXAMPLES.ticket] },
    ),
    errors: [400, 409, 422],
    async handle({ body, services, project, call }) {
      const result = await services.tickets.BulkUpdateTickets(bulkUpdateRequest(project.id, body), call);
      return { spliced: presentBulkResult(result) };
    },
  }),

  ticketOperation({
    method: 'get',
    path: '/tickets/:id',
    access: { scope: 'tickets:read', role: 'viewer' },
    request: { params: ticketIdParams },
    operationId: 'getTicket',
    summary: 'Get a ticket',
    success: oneTicket('The ticket.'),
    errors: [400, 404],
    async handle({ params, services, project, call }) {
      const found = await services.tickets.GetTicket({ project_id: project.id, id: params.id }, call);
      return ticketAnswer(found);
    },
  }),

  ticketOperation({
    method: 'put',
    path: '/tickets/:id',
    access: { scope: 'tickets:write', role: 'agent' },
    request: { params: ticketIdParams, body: updateTicketBody },
    bodyExample: { title: 'Printer on fire (3rd floor)', status: 'waiting', version: 2 },
    operationId: 'updateTicket',
    summary: 'Update a ticket',
    ifMatch: true,
    success: oneTicket('The updated ticket.'),
    errors: [400, 404, 409, 422],
    async handle({ params, body, ifMatch, services, project, call }) {
      const people = await resolveTicketPeople(body, services, call);
      const request = atIfMatchVersion(
        updateTicketRequest(project.id, params.id, body, people),
        ifMatch,
        params.id,
      );
      return ticketAnswer(await services.tickets.UpdateTicket(request, call));
    },
  }),

  ticketOperation({
    method: 'delete',
    path: '/tickets/:id',
    access: { scope: 'tickets:delete', role: 'team_lead' },
    request: { params: ticketIdParams },
    operationId: 'deleteTicket',
    summary: 'Delete a ticket (soft delete)',
    ifMatch: true,
    success: confirmation('Ticket deleted'),
    errors: [400, 404, 409],
    handle({ params, ifMatch, services, project, call }) {
      return confirmed(
        services.tickets.DeleteTicket(
          {
            project_id: project.id,
            id: params.id,
            expected_version: expectedTicketVersion(ifMatch, params.id),
          },
          call,
        ),
      );
    },
  }),

  ticketOperation({
    method: 'patch',
    path: '/tickets/:id/status',
    access: { scope: 'tickets:write', role: 'agent' },
    request: { params: ticketIdParams, body: moveTicketBody },
    bodyExample: { status: 'closed', after_id: 12, resolution_type: 'resolved' },
    operationId: 'moveTicket',
    summary: 'Move a ticket to a status lane',
    ifMatch: true,
    success: oneTicket('The moved ticket.'),
    errors: [400, 404, 409, 422],
    async handle({ params, body, ifMatch, services, project, call }) {
      const request = atIfMatchVersion(moveTicketRequest(project.id, params.id, body), ifMatch, params.id);
      return ticketAnswer(await services.tickets.MoveTicket(request, call));
    },
  }),

  ticketOperation({
    method: 'post',
    path: '/tickets/:id/merge',
    access: { scope: 'tickets:write', role: 'agent' },
    request: { params: ticketIdParams, body: mergeTicketBody },
    bodyExample: { target_id: 42 },
    operationId: 'mergeTicket',
    summary: 'Merge a ticket into another (additive)',
    success: oneTicket('The merged ticket.', EXAMPLES.mergedTicket),
    errors: [400, 404, 409, 422],
    async handle({ params, body, services, project, call }) {
      const merged = await services.tickets.MergeTicket(
        { project_id: project.id, id: params.id, target_id: body.target_id },
        call,
      );
      return ticketAnswer(merged);
    },
  }),

  ticketOperation({
    method: 'post',
    path: '/tickets/:id/restore',
    access: { scope: 'tickets:write', role: 'agent' },
    request: { params: ticketIdParams },
    operationId: 'restoreTicket',
    summary: 'Restore a deleted ticket (additive)',
    success: oneTicket('The restored ticket.'),
    errors: [400, 404, 409],
    async handle({ params, services, project, call }) {
      const restored = await services.tickets.RestoreTicket({ project_id: project.id, id: params.id }, call);
      return ticketAnswer(restored);
    },
  }),
];
