/**
 * The fields of CompareAndSetTicket (the contract in ticket_service.proto): reading
 * `expected_json` and `set_json`, comparing expectations with the ticket, and the conflict they make.
 *
 * - Fields, by public name: priority, assigned_to, status, resolution_type, tags, merged_into_id;
 *   `set_json` also takes tags_add and tags_remove. Any other name is refused (422): a misspelt
 *   expectation silently checking nothing would defeat the point.
 * - Values to set are checked as UpdateTicket / MoveTicket / MergeTicket check them (unknown
 *   priority or status, bad tags, a bad resolution_type: 422 under the field's name); expectations
 *   only for their type (422 under `expected.<field>`), since any value may simply not match.
 * - Comparison: tags as a set (normalised like stored tags), assigned_to null or 0 = unassigned.
 *   A mismatch is 409 `Ticket was changed after this action` with `<field>: ["is <current>,
 *   expected <expected>"]` for each field that differs.
 */
import { AppError, jsonNestingExceeds, jsonTooDeepMessage, type FieldErrors } from '@tix/kit';
import { isResolutionType, RESOLUTION_TYPES, type ResolutionType } from '@tix/protos';
import type { ProjectWorkflow, WorkflowStatus } from '../lookup/workflow.js';
import { NOTHING_TO_UPDATE } from '../tickets/update-ticket.js';
import type { Priority, TicketRow } from '../tickets/ticket-row.js';
import {
  checkPriority,
  checkStatus,
  normaliseTags,
  PRIORITY_MESSAGE,
  unknownStatusMessage,
} from '../tickets/ticket-rules.js';

export const TICKET_CHANGED_AFTER_ACTION = 'Ticket was changed after this action';

/** The fields an expectation may name. */
export const CAS_FIELDS = [
  'priority',
  'assigned_to',
  'status',
  'resolution_type',
  'tags',
  'merged_into_id',
] as const;
export type CasField = (typeof CAS_FIELDS)[number];

/** What `set_json` may name besides CAS_FIELDS. */
const SET_ONLY_FIELDS = ['tags_add', 'tags_remove'] as const;

/** What the ticket must hold now (absent: not checked). */
export interface Expectation {
  priority?: string;
  assigned_to?: number | null;
  status?: string;
  resolution_type?: string | null;
  /** Normalised, as a set. */
  tags?: string[];
  merged_into_id?: number | null;
}

/** What to write (absent: unchanged), checked. */
export interface CasSet {
  priority?: Priority;
  assignedTo?: number | null;
  status?: WorkflowStatus;
  resolutionType?: ResolutionType | null;
  tags?: string[];
  tagsAdd?: string[];
  tagsRemove?: string[];
  mergedIntoId?: number;
}

export const MERGE_SETS_STATUS = 'A merge sets status and resolution_type itself; leave them out';
export const UNMERGE_ONLY = 'merged_into_id can only be cleared by UnmergeTicket';
export const TAGS_WITH_CHANGES = 'tags cannot be combined with tags_add or tags_remove';

function unknownFieldMessage(allowed: readonly string[]): string {
  return `Unknown field: must be one of ${allowed.join(', ')}`;
}

/** The JSON object in `json` (empty text: {}); records `<field>: must be a JSON object` otherwise. */
function parseObject(errors: FieldErrors, field: string, json: string): Record<string, unknown> {
  if (json.trim() === '') return {};
  if (jsonNestingExceeds(json)) {
    errors.add(field, jsonTooDeepMessage());
    return {};
  }
  try {
    const value = JSON.parse(json) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  errors.add(field, `${field} must be a JSON object`);
  return {};
}

function isId(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** Stored tags are trimmed and lower-cased; an expectation is compared the same way. */
function tagSet(tags: readonly string[]): string[] {
  return [...new Set(tags.map((tag) => tag.trim().toLowerCase()))].sort();
}

/** Reads `expected_json` (see the file header). */
export function parseExpectation(errors: FieldErrors, json: string): Expectation {
  const raw = parseObject(errors, 'expected_json', json);
  const expected: Expectation = {};
  const wrongType = (field: string, what: string) => errors.add(`expected.${field}`, `must be ${what}`);
  for (const [field, value] of Object.entries(raw)) {
    switch (field) {
      case 'priority':
      case 'status':
        if (typeof value === 'string') expected[field] = value;
        else wrongType(field, 'a string');
        break;
      case 'resolution_type':
        if (value === null || typeof value === 'string') expected.resolution_type = value;
        else wrongType(field, 'a string or null');
        break;
      case 'assigned_to':
        if (value === null || value === 0 || isId(value)) expected.assigned_to = value || null;
        else wrongType(field, 'a user id or null');
        break;
      case 'merged_into_id':
        if (value === null || isId(value)) expected.merged_into_id = value;
        else wrongType(field, 'a ticket id or null');
        break;
      case 'tags':
        if (isStringArray(value)) expected.tags = tagSet(value);
        else wrongType(field, 'an array of strings');
        break;
      default:
        errors.add(`expected.${field}`, unknownFieldMessage(CAS_FIELDS));
    }
  }
  return expected;
}

/** Reads and checks `set_json` (see the file header); 422 for `{}`. */
export function parseSet(errors: FieldErrors, json: string, project: ProjectWorkflow): CasSet {
  const raw = parseObject(errors, 'set_json', json);
  const set: CasSet = {};
  if (Object.keys(raw).length === 0 && !errors.has('set_json')) errors.add('body', NOTHING_TO_UPDATE);
  const tagList = (field: string, value: unknown): string[] | undefined => {
    if (isStringArray(value)) return normaliseTags(errors, value);
    errors.add(field, `${field} must be an array of strings`);
    return undefined;
  };
  for (const [field, value] of Object.entries(raw)) {
    switch (field) {
      case 'priority':
        if (typeof value === 'string') set.priority = checkPriority(errors, value);
        else errors.add(field, PRIORITY_MESSAGE);
        break;
      case 'status':
        if (typeof value === 'string') set.status = checkStatus(errors, project, value);
        else errors.add(field, unknownStatusMessage(project));
        break;
      case 'resolution_type':
        if (value === null) set.resolutionType = null;
        else if (typeof value === 'string' && isResolutionType(value)) set.resolutionType = value;
        else errors.add(field, `resolution_type must be one of ${RESOLUTION_TYPES.join(', ')}`);
        break;
      case 'assigned_to':
        // As UpdateTicket: 0 (or null) unassigns.
        if (value === null || value === 0 || isId(value)) set.assignedTo = value || null;
        else errors.add(field, 'assigned_to must be a user id or null');
        break;
      case 'merged_into_id':
        if (isId(value)) set.mergedIntoId = value;
        else errors.add(field, value === null ? UNMERGE_ONLY : 'merged_into_id must be a ticket id');
        break;
      case 'tags':
        set.tags = tagList(field, value);
        break;
      case 'tags_add':
        set.tagsAdd = tagList(field, value);
        break;
      case 'tags_remove':
        set.tagsRemove = tagList(field, value);
        break;
      default:
        errors.add(field, unknownFieldMessage([...CAS_FIELDS, ...SET_ONLY_FIELDS]));
    }
  }
  if ('tags' in raw && ('tags_add' in raw || 'tags_remove' in raw)) errors.add('tags', TAGS_WITH_CHANGES);
  if ('merged_into_id' in raw && ('status' in raw || 'resolution_type' in raw))
    errors.add('merged_into_id', MERGE_SETS_STATUS);
  return set;
}

/** A ticket's CAS fields as the API names them. */
export function casValuesOf(row: TicketRow): Required<Expectation> {
  return {
    priority: row.priority,
    assigned_to: row.assignedTo,
    status: row.status,
    resolution_type: row.resolutionType,
    tags: tagSet(row.tags),
    merged_into_id: row.mergedIntoId,
  };
}

function shown(value: string | number | string[] | null | undefined): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.join(', ')}]`;
  return String(value);
}

/** `<field>: ["is <current>, expected <expected>"]` for every expected field `row` does not hold. */
export function mismatches(expected: Expectation, row: TicketRow): Record<string, string[]> {
  const current = casValuesOf(row);
  const found: Record<string, string[]> = {};
  for (const field of CAS_FIELDS) {
    const want = expected[field];
    if (want === undefined) continue;
    const have = current[field];
    const same = Array.isArray(want) ? JSON.stringify(want) === JSON.stringify(have) : want === have;
    if (!same) found[field] = [`is ${shown(have)}, expected ${shown(want)}`];
  }
  return found;
}

/** 409 `Ticket was changed after this action` naming each mismatched field. */
export function changedAfterAction(found: Record<string, string[]>): AppError {
  return new AppError('conflict', TICKET_CHANGED_AFTER_ACTION, found);
}
