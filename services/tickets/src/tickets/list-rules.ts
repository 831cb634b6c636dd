/**
 * The rules of GET /tickets as the service applies them: sort parsing, filters checked against the
 * project, and the `q` pattern (pages: the vocabulary's pageWindow and paginationOf). Query-parameter problems
 * are 400 with validation_errors keyed by parameter.
 */
import { AppError } from '@tix/kit';
import {
  codePointLength,
  isTicketPriority,
  TICKET_LIMITS,
  TICKET_PRIORITIES,
  TICKET_SORT_FIELDS,
  type TicketPriority,
  type TicketSortField,
  hasControlCharacters,
  hasLoneSurrogate,
} from '@tix/protos';
import { findStatus, statusList, type ProjectWorkflow } from '../lookup/workflow.js';

export type SortField = TicketSortField;

export interface SortOrder {
  field: SortField;
  descending: boolean;
}

export const DEFAULT_SORT: SortOrder = { field: 'created_at', descending: true };
/** 400 for one query parameter, like the gateway's own query validation. */
export function invalidParameter(parameter: string, message: string): AppError {
  return AppError.badRequest(`Invalid ${parameter}`, { [parameter]: [message] });
}

/**
 * Reads `sort`: a field with a `+` (ascending) or `-` (descending) prefix; a bare field is
 * ascending; a leading space counts as `+` (a literal `+` in a query string decodes to a space);
 * empty means the default `-created_at`.
 */
export function parseSort(text: string): SortOrder {
  if (text === '') return DEFAULT_SORT;
  let descending = false;
  let field = text;
  if (text.startsWith('-')) {
    descending = true;
    field = text.slice(1);
  } else if (text.startsWith('+') || text.startsWith(' ')) {
    field = text.slice(1);
  }
  if (!(TICKET_SORT_FIELDS as readonly string[]).includes(field)) {
    throw invalidParameter(
      'sort',
      `sort must be one of ${TICKET_SORT_FIELDS.join(', ')}, with an optional + or - prefix`,
    );
  }
  return { field: field as SortField, descending };
}

/** The filters of a list (and, without `q`, of the board). */
export interface TicketFilter {
  projectId: number;
  status?: string;
  priority?: TicketPriority;
  assignee?: number;
  /** Only tickets nobody is assigned to. */
  unassigned?: true;
  tag?: string;
  createdSince?: Date;
  updatedSince?: Date;
  /** Deleted tickets instead of live ones. */
  deletedOnly?: true;
  /** Tickets this customer requested or is copied on. */
  customerId?: number;
  /** Tickets this customer requested. */
  requesterId?: number;
}

/** The raw filter parameters of ListTickets / GetBoard. */
export interface FilterParameters {
  status?: string;
  priority?: string;
  assignee?: number;
  unassigned?: boolean;
  tag?: string;
  createdSince?: string;
  updatedSince?: string;
  deletedOnly?: boolean;
  customerId?: number;
  requesterId?: number;
}

/** A time parameter: ISO 8601 with a zone; 400 naming it otherwise. */
function timeOf(parameter: string, text: string): Date {
  const time = Date.parse(text);
  if (!/^\d{4}-\d\d-\d\dT.*(Z|[+-]\d\d:\d\d)$/.test(text) || Number.isNaN(time))
    throw invalidParameter(parameter, `${parameter} must be an ISO 8601 time with a zone`);
  return new Date(time);
}

/** Checks the filters against the project (status slug, priority, tag); 400 naming the parameter. */
export function checkFilter(project: ProjectWorkflow, parameters: FilterParameters): TicketFilter {
  const filter: TicketFilter = { projectId: project.id };
  if (parameters.status !== undefined) {
    if (!findStatus(project, parameters.status))
      throw invalidParameter(
        'status',
        `status must be one of the project's statuses: ${statusList(project)}`,
      );
    filter.status = parameters.status;
  }
  if (parameters.priority !== undefined) {
    if (!isTicketPriority(parameters.priority))
      throw invalidParameter('priority', `priority must be one of ${TICKET_PRIORITIES.join(', ')}`);
    filter.priority = parameters.priority;
  }
  if (parameters.assignee !== undefined && parameters.unassigned)
    throw invalidParameter('assignee', 'assignee is either a user id or none');
  if (parameters.assignee !== undefined) filter.assignee = parameters.assignee;
  if (parameters.unassigned) filter.unassigned = true;
  if (parameters.createdSince !== undefined)
    filter.createdSince = timeOf('created_since', parameters.createdSince);
  if (parameters.updatedSince !== undefined)
    filter.updatedSince = timeOf('updated_since', parameters.updatedSince);
  if (parameters.deletedOnly) filter.deletedOnly = true;
  for (const [parameter, key] of [
    ['customer_id', 'customerId'],
    ['requester_id', 'requesterId'],
  ] as const) {
    const id = parameters[key];
    if (id === undefined) continue;
    if (!Number.isInteger(id) || id < 1)
      throw invalidParameter(parameter, `${parameter} must be a customer id (a positive integer)`);
    filter[key] = id;
  }
  if (parameters.tag !== undefined) {
    const tag = parameters.tag.trim().toLowerCase();
    const length = codePointLength(tag);
    if (
      length === 0 ||
      length > TICKET_LIMITS.tag ||
      hasControlCharacters(tag, false) ||
      hasLoneSurrogate(tag)
    )
      throw invalidParameter('tag', `tag must be 1 to ${TICKET_LIMITS.tag} characters of text`);
    filter.tag = tag;
  }
  return filter;
}

/** Checks `q`: 1 to 200 characters of text (PostgreSQL cannot even compare NUL). */
export function checkSearchText(q: string): string {
  const length = codePointLength(q);
  if (length === 0 || length > TICKET_LIMITS.q || q.includes('\0') || hasLoneSurrogate(q))
    throw invalidParameter('q', `q must be 1 to ${TICKET_LIMITS.q} characters of text`);
  return q;
}

/** The ticket `q` names by its number (`SUP-42`, any case, in the project of that prefix), if any. */
export function projectRefOf(prefix: string, q: string): number | undefined {
  const match = /^\s*([A-Za-z0-9]+)-(\d{1,9})\s*$/.exec(q);
  return match !== null && match[1]!.toUpperCase() === prefix.toUpperCase() ? Number(match[2]) : undefined;
}

/** The ILIKE pattern matching `q` anywhere, with LIKE's own characters (% _ \) taken literally. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}
