/** gRPC handlers of the TicketService: translate messages to use-case inputs and back, nothing else. */
import type { AsyncHandlers } from '@tix/kit';
import type { ticket } from '@tix/protos';
import { bulkUpdateTickets } from './bulk/bulk-update-tickets.js';
import { compareAndSetTicket, type CasOutcome } from './compare-and-set/compare-and-set-ticket.js';
import { unmergeTicket } from './compare-and-set/unmerge-ticket.js';
import { getBoard } from './lanes/board.js';
import { moveTicket } from './lanes/move-ticket.js';
import { mergeTicket } from './merges/merge-ticket.js';
import { createTicket } from './tickets/create-ticket.js';
import { deleteTicket, restoreTicket } from './tickets/delete-restore-ticket.js';
import { getTicket, listTickets, searchTickets, type SearchTicketsInput } from './tickets/read-tickets.js';
import type { ProjectTicket, TicketDeps } from './tickets/ticket-steps.js';
import { apiTicket, ticketsJsonBytes } from './tickets/ticket-mapper.js';
import { updateTicket } from './tickets/update-ticket.js';

export type TicketHandlers = AsyncHandlers<ticket.TicketServiceHandlers>;

/** The filters a list and a search share, as the use cases take them. */
function filterInput(request: ticket.ListTicketsRequest__Output | ticket.SearchTicketsRequest__Output) {
  return {
    projectId: request.project_id,
    sort: request.sort,
    status: request.status,
    priority: request.priority,
    assignee: request.assignee,
    tag: request.tag,
    unassigned: request.unassigned,
    createdSince: request.created_since,
    updatedSince: request.updated_since,
    deletedOnly: request.deleted_only,
    customerId: request.customer_id,
    requesterId: request.requester_id,
  };
}

/** A search's parameters as searchTickets takes them. */
function searchInput(request: ticket.SearchTicketsRequest__Output): SearchTicketsInput {
  return { ...filterInput(request), q: request.q };
}

function message(result: ProjectTicket): ticket.ApiTicket__Output {
  return apiTicket(result.row, result.project);
}

function casResult(outcome: CasOutcome): ticket.CompareAndSetResult__Output {
  return {
    ticket: apiTicket(outcome.row, outcome.project),
    previous_position_token: outcome.previousPositionToken,
  };
}

/** An absent wrapper: unchanged; a wrapper without a value: null (cleared / unassigned). */
function nullable<T>(wrapper: { value?: T } | null): T | null | undefined {
  if (wrapper === null) return undefined;
  return wrapper.value ?? null;
}

/** RPCs served by their own modules, registered beside these in server.ts (ExportUserTickets: export/export-user-tickets.ts). */
type ServedElsewhere = 'ExportUserTickets' | 'CountTicketsInStatus' | 'CountInvalidFieldValues';

/** Every RPC of the contract over the ticket use cases. */
export function ticketHandlers(deps: TicketDeps): Omit<TicketHandlers, ServedElsewhere> {
  return {
    async ListTickets(request, context) {
      const list = await listTickets(
        deps,
        { ...filterInput(request), page: request.page, cursor: request.cursor },
        context,
      );
      const tickets = { tickets_json: ticketsJsonBytes(list.rows, list.project) };
      if ('pagination' in list) return { ...tickets, pagination: list.pagination };
      return { ...tickets, next_cursor: list.nextCursor };
    },

    async *SearchTicketsJson(request, context) {
      const { project, batches } = await searchTickets(deps, searchInput(request), context);
      for await (const rows of batches) yield { tickets_json: ticketsJsonBytes(rows, project) };
    },

    async CreateTicket(request, context) {
      const created = await createTicket(
        deps,
        {
          projectId: request.project_id,
          ticketTypeId: request.ticket_type_id,
          title: request.title,
          description: request.description,
          priority: request.priority,
          assignedTo: request.assigned_to,
          customFieldsJson: request.custom_fields_json,
          tags: request.tags,
          requesterId: request.requester_id,
          cc: request.cc,
          sourceType: request.source_type,
          ...(request.source_ref === undefined ? {} : { sourceRef: request.source_ref }),
        },
        context,
      );
      return message(created);
    },

    async GetTicket(request, context) {
      const address =
        request.id === 0 && request.project_ref_id !== undefined
          ? { projectId: request.project_id, id: 0, number: request.project_ref_id }
          : { projectId: request.project_id, id: request.id };
      return message(await getTicket(deps, address, context));
    },

    async UpdateTicket(request, context) {
      const updated = await updateTicket(
        deps,
        {
          projectId: request.project_id,
          id: request.id,
          title: request.title,
          description: nullable(request.description),
          status: request.status,
          priority: request.priority,
          assignedTo: nullable(request.assigned_to),
          customFieldsJson: request.custom_fields_json,
          tags: request.tags?.values,
          requesterId: nullable(request.requester_id),
          cc: request.cc?.ids,
          version: request.version,
          expectedVersion: request.expected_version,
        },
        context,
      );
      return message(updated);
    },

    async DeleteTicket(request, context) {
      return deleteTicket(
        deps,
        { projectId: request.project_id, id: request.id, expectedVersion: request.expected_version },
        context,
      );
    },

    async RestoreTicket(request, context) {
      return message(await restoreTicket(deps, { projectId: request.project_id, id: request.id }, context));
    },

    async MoveTicket(request, context) {
      const moved = await moveTicket(
        deps,
        {
          projectId: request.project_id,
          id: request.id,
          status: request.status,
          afterId: request.after_id,
          beforeId: request.before_id,
          resolutionType: request.resolution_type,
          expectedVersion: request.expected_version,
        },
        context,
      );
      return message(moved);
    },

    async BulkUpdateTickets(request, context) {
      const result = await bulkUpdateTickets(
        deps,
        {
          projectId: request.project_id,
          ticketIds: request.ticket_ids,
          status: request.status,
          priority: request.priority,
          assignedTo: nullable(request.assigned_to),
          tags: request.tags?.values,
        },
        context,
      );
      return {
        success_count: result.successCount,
        failed_count: result.failedIds.length,
        failed_ids: result.failedIds,
        tickets_json: ticketsJsonBytes(result.tickets, result.project),
      };
    },

    async MergeTicket(request, context) {
      const merged = await mergeTicket(
        deps,
        { projectId: request.project_id, id: request.id, targetId: request.target_id },
        context,
      );
      return message(merged);
    },

    async GetBoard(request, context) {
      const board = await getBoard(
        deps,
        {
          projectId: request.project_id,
          priority: request.priority,
          assignee: request.assignee,
          laneLimit: request.lane_limit,
        },
        context,
      );
      return {
        lanes: board.lanes.map((lane) => ({
          status: lane.status.slug,
          label: lane.status.label,
          is_closed: lane.status.isClosed,
          tickets_json: ticketsJsonBytes(lane.rows, board.project),
          count: lane.count,
        })),
        total: board.total,
      };
    },

    async CompareAndSetTicket(request, context) {
      const outcome = await compareAndSetTicket(
        deps,
        {
          projectId: request.project_id,
          id: request.id,
          expectedJson: request.expected_json,
          setJson: request.set_json,
          positionToken: request.position_token,
          force: request.force,
        },
        context,
      );
      return casResult(outcome);
    },

    async UnmergeTicket(request, context) {
      const outcome = await unmergeTicket(
        deps,
        {
          projectId: request.project_id,
          id: request.id,
          expectedMergedIntoId: request.expected_merged_into_id,
          restoreStatus: request.restore_status,
          restoreResolutionType: request.restore_resolution_type,
          positionToken: request.position_token,
          force: request.force,
        },
        context,
      );
      return casResult(outcome);
    },
  };
}
