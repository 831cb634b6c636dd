/**
 * Tickets as ticket.v1 messages, and as the public JSON: objects (event payloads) and JSON text (the
 * list and board answers the gateway passes on without decoding them).
 */
import type { ticket, TicketJson } from '@tix/protos';
import { statusLabel, type ProjectWorkflow } from '../lookup/workflow.js';
import type { Priority, TicketRow } from './ticket-row.js';

export const PRIORITY_LABELS: Readonly<Record<Priority, string>> = {
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  critical: 'Critical',
};

/** A ticket's display number: `<project prefix>-<project_ref_id>` (the write store fills it in SQL the same way). */
export function ticketNumber(prefix: string, projectRefId: number): string {
  return `${prefix}-${projectRefId}`;
}

/**
 * The Ticket message of a row: ticket_number `<prefix>-<project_ref_id>`, labels from the project's
 * workflow and the priority table, null columns as absent optionals, custom fields as JSON text.
 */
export function toTicketMessage(row: TicketRow, project: ProjectWorkflow): ticket.Ticket__Output {
  return {
    id: row.id,
    project_id: row.projectId,
    ticket_type_id: row.ticketTypeId,
    project_ref_id: row.projectRefId,
    ticket_number: ticketNumber(project.prefix, row.projectRefId),
    title: row.title,
    ...(row.description === null ? {} : { description: row.description }),
    status: row.status,
    status_label: statusLabel(project, row.status),
    priority: row.priority,
    priority_label: PRIORITY_LABELS[row.priority],
    ...(row.assignedTo === null ? {} : { assigned_to: row.assignedTo }),
    created_by: row.createdBy,
    ...(row.updatedBy === null ? {} : { updated_by: row.updatedBy }),
    custom_fields_json: JSON.stringify(row.customFields),
    source_type: row.sourceType,
    ...(row.mergedIntoId === null ? {} : { merged_into_id: row.mergedIntoId }),
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    tags: [...row.tags],
    ...(row.resolutionType === null ? {} : { resolution_type: row.resolutionType }),
  };
}

/**
 * The ticket exactly as the public API returns it (webhook and event payloads, and the JSON text of
 * lists and boards), built straight from the row: what `presentTicket(toTicketMessage(row, project))`
 * gives, key order included (the unit tests hold it to that), without the message and the custom
 * fields' JSON round trip in between.
 */
export function toTicketJson(row: TicketRow, project: ProjectWorkflow): TicketJson {
  const merged = row.mergedIntoId;
  const json: TicketJson = {
    id: row.id,
    project_id: row.projectId,
    ticket_type_id: row.ticketTypeId,
    project_ref_id: row.projectRefId,
    ticket_number: ticketNumber(project.prefix, row.projectRefId),
    title: row.title,
    description: row.description,
    status: row.status,
    status_label: statusLabel(project, row.status),
    priority: row.priority,
    priority_label: PRIORITY_LABELS[row.priority],
    assigned_to: row.assignedTo,
    created_by: row.createdBy,
    updated_by: row.updatedBy,
    custom_fields: row.customFields,
    source_type: row.sourceType,
    merged_into_id: merged,
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    tags: row.tags,
    resolution_type: row.resolutionType,
  };
  if (merged !== null) json.merged_into = merged;
  return json;
}

/** The ticket as the public API's JSON text (toTicketJson). */
export function ticketJsonText(row: TicketRow, project: ProjectWorkflow): string {
  return JSON.stringify(toTicketJson(row, project));
}

/** Tickets as one UTF-8 JSON array of ticketJsonText (a list page's or a board lane's `tickets_json`). */
export function ticketsJsonBytes(rows: readonly TicketRow[], project: ProjectWorkflow): Buffer {
  let text = '[';
  for (let index = 0; index < rows.length; index += 1) {
    if (index > 0) text += ',';
    text += ticketJsonText(rows[index]!, project);
  }
  return Buffer.from(`${text}]`, 'utf8');
}
