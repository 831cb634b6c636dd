/**
 * Between the validated HTTP input of the ticket routes and the TicketService messages: requests are
 * built field by field (never by spreading the body, so nothing unexpected reaches the service) with
 * the contract's presence rules (an absent optional means "not given"; NullableInt32 / NullableString /
 * StringList wrappers tell "leave" from "clear" from "set"), and responses are shaped as the spec's
 * JSON. Every ticket the service answers is the API's JSON text already (ApiTicket, and the
 * `tickets_json` arrays of pages, lanes and bulk results): the answer splices it in (RawJson) instead
 * of decoding and re-encoding every ticket.
 */
import { AppError } from '@tix/kit';
import type { common, ticket, TicketJson } from '@tix/protos';
import { givenFields } from '../../http/validate.js';
import { RawJson } from '../../http/envelope.js';
import type { BoardQuery } from './board.schemas.js';
import type { BulkUpdateBody, MoveTicketBody } from './ticket-actions.schemas.js';
import type { CreateTicketBody, ListTicketsQuery, UpdateTicketBody } from './tickets.schemas.js';

/**
 * A write's assigned_to as the contract's wrapper: omitted or null -> absent (unchanged), 0 -> `{}`
 * (unassign), n -> `{ value: n }`.
 */
export function assigneeChange(value: number | null | undefined): common.NullableInt32 | undefined {
  if (value === undefined || value === null) return undefined;
  return value === 0 ? {} : { value };
}

/** A write's description: omitted -> absent (unchanged), null -> `{}` (clear), text -> `{ value }`. */
export function descriptionChange(value: string | null | undefined): common.NullableString | undefined {
  if (value === undefined) return undefined;
  return value === null ? {} : { value };
}

/** A write's tags: omitted or null -> absent (unchanged), a list (even empty) -> `{ values }` (replace). */
export function tagsChange(value: string[] | null | undefined): common.StringList | undefined {
  return value === undefined || value === null ? undefined : { values: value };
}

/**
 * The requester and cc of a write, as customer ids (ticket-people.ts resolves the body's ids and
 * addresses): `requester_id` undefined leaves it, null clears it; `cc` undefined leaves it.
 */
export interface TicketPeople {
  requester_id?: number | null;
  cc?: number[];
}

/** GET /tickets query -> ListTicketsRequest. */
export function listTicketsRequest(projectId: number, query: ListTicketsQuery): ticket.ListTicketsRequest {
  return {
    project_id: projectId,
    // Cursor mode: the position is the cursor's, so no page number travels.
    page:
      query.cursor === undefined
        ? { page: query.page, per_page: query.per_page }
        : { per_page: query.per_page },
    sort: query.sort,
    ...listFilters(query),
    ...givenFields(query, 'cursor'),
  };
}

/** The tickets of a page, lane or bulk result: the service's JSON array as it is. */
export function ticketsOf(answer: { tickets_json: Buffer }): RawJson<TicketJson[]> {
  return new RawJson(answer.tickets_json);
}

/** One ticket the service answered: its JSON text as it is. */
export function ticketOf(answer: ticket.ApiTicket__Output): RawJson<TicketJson> {
  return new RawJson(answer.json);
}

/** The filters a list and a search share, as the ticket service takes them. */
function listFilters(query: ListTicketsQuery) {
  return {
    status: query.status,
    priority: query.priority,
    ...(query.assignee === 'none' ? { unassigned: true } : { assignee: query.assignee }),
    tag: query.tag,
    created_since: query.created_since,
    updated_since: query.updated_since,
    ...(query.deleted === 'only' ? { deleted_only: true } : {}),
    ...givenFields(query, 'customer_id', 'requester_id'),
  };
}

/** GET /tickets?q= query -> SearchTicketsRequest (every match, no pagination). */
export function searchTicketsRequest(
  projectId: number,
  query: ListTicketsQuery & { q: string },
): ticket.SearchTicketsRequest {
  return {
    project_id: projectId,
    q: query.q,
    sort: query.sort,
    ...listFilters(query),
  };
}

/** POST /tickets body -> CreateTicketRequest (assigned_to 0 or null: nobody; priority absent: medium). */
export function createTicketRequest(
  projectId: number,
  body: CreateTicketBody,
  people: TicketPeople = {},
): ticket.CreateTicketRequest {
  return {
    project_id: projectId,
    ticket_type_id: body.ticket_type_id,
    title: body.title,
    description: body.description ?? undefined,
    priority: body.priority,
    assigned_to: body.assigned_to ? body.assigned_to : undefined,
    custom_fields_json: body.custom_fields === undefined ? '' : JSON.stringify(body.custom_fields),
    tags: body.tags ?? [],
    ...(typeof people.requester_id === 'number' ? { requester_id: people.requester_id } : {}),
    ...(people.cc && people.cc.length > 0 ? { cc: people.cc } : {}),
  };
}

/** PUT /tickets/{id} body -> UpdateTicketRequest (only given fields are present). */
export function updateTicketRequest(
  projectId: number,
  id: number,
  body: UpdateTicketBody,
  people: TicketPeople = {},
): ticket.UpdateTicketRequest {
  return {
    project_id: projectId,
    id,
    title: body.title,
    description: descriptionChange(body.description),
    status: body.status,
    priority: body.priority,
    assigned_to: assigneeChange(body.assigned_to),
    custom_fields_json: body.custom_fields === undefined ? undefined : JSON.stringify(body.custom_fields),
    version: body.version,
    tags: tagsChange(body.tags),
    ...(people.requester_id === undefined
      ? {}
      : { requester_id: people.requester_id === null ? {} : { value: people.requester_id } }),
    ...(people.cc === undefined ? {} : { cc: { ids: people.cc } }),
  };
}

/** PATCH /tickets/{id}/status body -> MoveTicketRequest (null placement or resolution = not given). */
export function moveTicketRequest(
  projectId: number,
  id: number,
  body: MoveTicketBody,
): ticket.MoveTicketRequest {
  return {
    project_id: projectId,
    id,
    status: body.status,
    after_id: body.after_id ?? undefined,
    before_id: body.before_id ?? undefined,
    resolution_type: body.resolution_type ?? undefined,
  };
}

/** POST /tickets/bulk-update body -> BulkUpdateTicketsRequest (tags: null clears them, unlike PUT's). */
export function bulkUpdateRequest(projectId: number, body: BulkUpdateBody): ticket.BulkUpdateTicketsRequest {
  return {
    project_id: projectId,
    ticket_ids: body.ticket_ids,
    status: body.status,
    priority: body.priority,
    assigned_to: assigneeChange(body.assigned_to),
    tags: body.tags === null ? { values: [] } : tagsChange(body.tags),
  };
}

/** GET /board query -> GetBoardRequest. */
export function boardRequest(projectId: number, query: BoardQuery): ticket.GetBoardRequest {
  return {
    project_id: projectId,
    priority: query.priority,
    assignee: query.assignee,
    lane_limit: query.lane_limit,
  };
}

/** GET /tickets response: tickets plus pagination, which is absent when the service sent none (`q`). */
export function presentTicketPage(page: ticket.TicketPage__Output): {
  tickets: RawJson<TicketJson[]>;
  pagination: { total: number; page: number; per_page: number; total_pages: number };
} {
  const tickets = ticketsOf(page);
  const pagination = page.pagination;
  if (!pagination) throw AppError.internal('the ticket service answered a page without pagination');
  return {
    tickets,
    pagination: {
      total: pagination.total,
      page: pagination.page,
      per_page: pagination.per_page,
      total_pages: pagination.total_pages,
    },
  };
}

/** GET /tickets?cursor= response: tickets and where the next page starts (null: this is the last). */
export function presentTicketCursorPage(page: ticket.TicketPage__Output): {
  tickets: RawJson<TicketJson[]>;
  next_cursor: string | null;
} {
  return { tickets: ticketsOf(page), next_cursor: page.next_cursor || null };
}

/** POST /tickets/bulk-update response. */
export function presentBulkResult(result: ticket.BulkUpdateResult__Output) {
  return {
    success_count: result.success_count,
    failed_count: result.failed_count,
    failed_ids: result.failed_ids,
    tickets: ticketsOf(result),
  };
}

/**
 * GET /board response (spec Board): `lanes` keyed by status slug in workflow order (the order the
 * service sent them; status slugs start with a letter, so JSON keeps that order) and `counts` with
 * every lane's exact count plus `total`.
 */
export function presentBoard(board: ticket.Board__Output): {
  lanes: Record<string, RawJson<TicketJson[]>>;
  counts: Record<string, number>;
} {
  // fromEntries defines own properties, whatever the slug.
  const lanes = Object.fromEntries(board.lanes.map((lane) => [lane.status, ticketsOf(lane)]));
  const counts: Record<string, number> = Object.fromEntries(
    board.lanes.map((lane) => [lane.status, lane.count]),
  );
  counts.total = board.total;
  return { lanes, counts };
}
