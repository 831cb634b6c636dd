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

/** A ticket's display number: `<project prefix>-<project_ref_id>` (ticketJsonSql writes it the same way). */
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
    requester_id: row.requesterId,
    cc: row.cc,
    closed_at: row.closedAt === null ? null : row.closedAt.toISOString(),
  };
  if (merged !== null) json.merged_into = merged;
  return json;
}

/** What ticketJsonSql takes as SQL expressions (parameters) because the row does not hold it. */
export interface TicketJsonSqlInputs {
  prefix: string;
  statusLabel: string;
  priorityLabel: string;
}

/** A timestamptz as Date.toISOString writes it (UTC, milliseconds, `Z`). */
const isoTimeSql = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * toTicketJson in SQL, as a jsonb expression of the tickets row `t`: for the create statement,
 * which learns the ticket's number only as it runs and writes the ticket.created event from the
 * numbered row (ticket-write-store.ts). The table names every key of TicketJson (the compiler holds
 * it to the type); the event tests hold the values to toTicketJson's.
 */
export function ticketJsonSql(t: string, inputs: TicketJsonSqlInputs): string {
  const fields = {
    id: `${t}.id`,
    project_id: `${t}.project_id`,
    ticket_type_id: `${t}.ticket_type_id`,
    project_ref_id: `${t}.project_ref_id`,
    ticket_number: `${inputs.prefix} || '-' || ${t}.project_ref_id`,
    title: `${t}.title`,
    description: `${t}.description`,
    status: `${t}.status`,
    status_label: inputs.statusLabel,
    priority: `${t}.priority`,
    priority_label: inputs.priorityLabel,
    assigned_to: `${t}.assigned_to`,
    created_by: `${t}.created_by`,
    updated_by: `${t}.updated_by`,
    custom_fields: `${t}.custom_fields`,
    source_type: `${t}.source_type`,
    merged_into_id: `${t}.merged_into_id`,
    version: `${t}.version`,
    created_at: isoTimeSql(`${t}.created_at`),
    updated_at: isoTimeSql(`${t}.updated_at`),
    tags: `to_jsonb(${t}.tags)`,
    resolution_type: `${t}.resolution_type`,
    requester_id: `${t}.requester_id`,
    cc: `to_jsonb(${t}.cc)`,
    closed_at: `CASE WHEN ${t}.closed_at IS NULL THEN NULL ELSE ${isoTimeSql(`${t}.closed_at`)} END`,
  } satisfies Record<Exclude<keyof TicketJson, 'merged_into'>, string>;
  const pairs = Object.entries(fields).map(([key, sql]) => `'${key}', ${sql}`);
  return `(jsonb_build_object(${pairs.join(', ')}) || CASE WHEN ${t}.merged_into_id IS NULL THEN '{}'::jsonb
          ELSE jsonb_build_object('merged_into', ${t}.merged_into_id) END)`;
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
