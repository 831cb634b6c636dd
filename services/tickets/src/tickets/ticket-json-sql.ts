/**
 * A ticket as the public API's JSON text, built by PostgreSQL: the same fields, order and formats
 * as ticketJsonText (ticket-mapper.ts) and presentTicket, so the ticket service neither parses the
 * rows nor serialises them (a board of 200 tickets: no Date, jsonb or array parsing, no objects).
 * Differences are insignificant whitespace only: custom_fields is jsonb's own text (`{"a": 1}`).
 * Written field by field with to_json for text (PostgreSQL escapes strings as JSON.stringify does):
 * measured cheaper than row_to_json of a row (PostgreSQL 1.2 against 1.5 ms per board of 200).
 * The integration tests hold it to ticketJsonText for the same rows. Used for the board only: for a
 * list page of 50, warmed up, it only moved CPU from the service to PostgreSQL (about 1.1 ms per
 * page both ways), so pages are written by ticketJsonText.
 */
import { PRIORITY_LABELS } from './ticket-mapper.js';

/** What the JSON needs besides the row: the project's prefix and status labels. */
export interface TicketJsonProject {
  prefix: string;
  statuses: readonly { slug: string; label: string }[];
}

/** An ISO 8601 UTC time with milliseconds, as Date.toISOString writes it (the columns hold ms). */
function isoTime(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * The SQL expression (text) of the JSON of the ticket in row `r`, whose columns are named as
 * TICKET_COLUMNS names them; pushes the project's prefix, slugs and labels onto `values`.
 */
export function ticketJsonSql(r: string, project: TicketJsonProject, values: unknown[]): string {
  values.push(
    project.prefix,
    project.statuses.map((status) => status.slug),
    project.statuses.map((status) => status.label),
  );
  const prefix = `$${values.length - 2}::text`;
  const slugs = `$${values.length - 1}::text[]`;
  const labels = `$${values.length}::text[]`;
  // The labels as JSON strings (constants without quotes of either kind).
  const priorityLabels = Object.entries(PRIORITY_LABELS)
    .map(([priority, label]) => `WHEN '${priority}' THEN '${JSON.stringify(label)}'`)
    .join(' ');
  // Compact JSON in presentTicket's order, written field by field (cheaper than row_to_json of a row).
  const text = (expression: string) => `coalesce(to_json(${expression})::text, 'null')`;
  const number = (expression: string) => `coalesce((${expression})::text, 'null')`;
  const fields: [string, string][] = [
    ['id', `${r}.id::text`],
    ['project_id', `${r}."projectId"::text`],
    ['ticket_type_id', `${r}."ticketTypeId"::text`],
    ['project_ref_id', `${r}."projectRefId"::text`],
    ['ticket_number', `to_json(${prefix} || '-' || ${r}."projectRefId")::text`],
    ['title', `to_json(${r}.title)::text`],
    ['description', text(`${r}.description`)],
    ['status', `to_json(${r}.status)::text`],
    [
      'status_label',
      `to_json(coalesce((${labels})[array_position(${slugs}, ${r}.status)], ${r}.status))::text`,
    ],
    ['priority', `to_json(${r}.priority)::text`],
    ['priority_label', `CASE ${r}.priority ${priorityLabels} END`],
    ['assigned_to', number(`${r}."assignedTo"`)],
    ['created_by', `${r}."createdBy"::text`],
    ['updated_by', number(`${r}."updatedBy"`)],
    ['custom_fields', `${r}."customFields"::text`],
    ['source_type', `to_json(${r}."sourceType")::text`],
    ['merged_into_id', number(`${r}."mergedIntoId"`)],
    ['version', `${r}.version::text`],
    ['created_at', `'"' || ${isoTime(`${r}."createdAt"`)} || '"'`],
    ['updated_at', `'"' || ${isoTime(`${r}."updatedAt"`)} || '"'`],
    ['tags', `to_json(${r}.tags)::text`],
    ['resolution_type', text(`${r}."resolutionType"`)],
  ];
  const body = fields
    .map(([name, value], index) => `'${index === 0 ? '{' : ','}"${name}":' || ${value}`)
    .join(' || ');
  // merged_into only for a merged ticket, last (as presentTicket adds it).
  return `${body} || CASE WHEN ${r}."mergedIntoId" IS NULL THEN '}' ELSE ',"merged_into":' || ${r}."mergedIntoId" || '}' END`;
}
