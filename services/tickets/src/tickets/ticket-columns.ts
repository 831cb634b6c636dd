/** The SELECT list that turns a `tickets` row (alias t) into a TicketRow, shared by every store query. */

/** Columns of `tickets t` named as TicketRow's properties (pg parses jsonb, arrays and timestamps). */
export const TICKET_COLUMNS = `
  t.id, t.project_id AS "projectId", t.ticket_type_id AS "ticketTypeId",
  t.project_ref_id AS "projectRefId", t.title, t.description, t.status, t.priority::text AS priority,
  t.assigned_to AS "assignedTo", t.created_by AS "createdBy", t.updated_by AS "updatedBy",
  t.custom_fields AS "customFields", t.source_type AS "sourceType", t.merged_into_id AS "mergedIntoId",
  t.resolution_type::text AS "resolutionType", t.tags, t.version, t.lane_rank AS "laneRank",
  t.created_at AS "createdAt", t.updated_at AS "updatedAt", t.deleted_at AS "deletedAt",
  t.closed_at AS "closedAt",
  t.requester_id AS "requesterId", t.cc`;
