/**
 * Tickets as the public JSON: objects (event payloads) and JSON text, the one form in which every
 * ticket RPC answers (ApiTicket, and the `tickets_json` arrays of lists, boards and searches), which
 * the gateway passes on without decoding.
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
 * The ticket exactly as the public API returns it (webhook and event payloads, and the JSON text of
 * every answer), built straight from the row: labels from the project's workflow and the priority
 * table, null columns as null, `merged_into` only when merged, keys in the spec's order (the unit
 * tests hold it to that).
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

/** One ticket as an RPC answers it: its JSON text, with the id and version the gateway reads. */
export function apiTicket(row: TicketRow, project: ProjectWorkflow): ticket.ApiTicket__Output {
  return { id: row.id, version: row.version, json: Buffer.from(ticketJsonText(row, project), 'utf8') };
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
