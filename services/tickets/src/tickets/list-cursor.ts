/**
 * The cursor of the ticket list's cursor mode (keyset pagination): base64url of the canonical JSON
 * `{"f":"<query>","k":<sort key>,"i":<id>}`, the last listed ticket's position in the sort (its sort
 * key and id) and a fingerprint of the query it belongs to (project, sort, filters). Clients must
 * not build cursors; only the canonical spelling decodes, so a cursor stands for one position.
 *
 * No signature: a cursor only says where in the caller's own filtered list to continue (the
 * filters, the project and the caller's rights come from the request), so a forged position lists
 * nothing a crafted `sort` and filter could not. The fingerprint catches the honest mistake of
 * changing the filters or sort between pages.
 */
import { createHash } from 'node:crypto';
import { MAX_INT32, SLUG_MAX_LENGTH, TICKET_LIMITS, TICKET_PRIORITIES } from '@tix/protos';
import { invalidParameter, type SortField, type SortOrder, type TicketFilter } from './list-rules.js';

/** The sort key of a listed ticket as the list compares it (see ticket-read-store keysetPageQuery). */
export type SortKey = string | number | null;

/** Where a page of the cursor mode starts: right after the ticket with this key and id. */
export interface ListPosition {
  key: SortKey;
  id: number;
}

export const INVALID_CURSOR = 'Invalid cursor';
export const CURSOR_OF_ANOTHER_QUERY =
  'The cursor belongs to another sort or other filters: keep those of the first page, or start again with an empty cursor';
export const CURSOR_WITH_PAGE = 'cursor cannot be combined with page: the cursor holds the position';

/** The longest title key in UTF-16 units: a lower-cased title may outgrow the title (`İ` -> `i̇`). */
const MAX_TITLE_KEY = TICKET_LIMITS.title * 4;

/** Longer text cannot be a cursor this service made (a unit takes at most 6 bytes in the JSON). */
export const MAX_CURSOR_LENGTH = 4 * Math.ceil((MAX_TITLE_KEY * 6 + 120) / 3);

/** The query a cursor belongs to: the same sort and filters always give the same fingerprint. */
export function queryFingerprint(filter: TicketFilter, sort: SortOrder): string {
  const canonical = JSON.stringify([
    filter.projectId,
    sort.field,
    sort.descending,
    filter.status ?? null,
    filter.priority ?? null,
    filter.assignee ?? null,
    filter.unassigned ?? false,
    filter.tag ?? null,
    filter.createdSince?.toISOString() ?? null,
    filter.updatedSince?.toISOString() ?? null,
    filter.deletedOnly ?? false,
    filter.customerId ?? null,
    filter.requesterId ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

export function encodeListCursor(fingerprint: string, position: ListPosition): string {
  return Buffer.from(JSON.stringify({ f: fingerprint, k: position.key, i: position.id })).toString(
    'base64url',
  );
}

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Whether `key` is a key the sort `field` produces (the type and range the store compares). */
function fitsSort(field: SortField, key: unknown): key is SortKey {
  switch (field) {
    case 'id':
      return key === null;
    case 'title':
      return typeof key === 'string' && key.length <= MAX_TITLE_KEY;
    case 'status':
      return typeof key === 'string' && key.length >= 1 && key.length <= SLUG_MAX_LENGTH;
    case 'priority':
      return typeof key === 'string' && (TICKET_PRIORITIES as readonly string[]).includes(key);
    case 'created_at':
    case 'updated_at':
      return typeof key === 'string' && TIME.test(key) && !Number.isNaN(Date.parse(key));
    case 'assigned_to':
      return (
        key === null || (Number.isSafeInteger(key) && (key as number) >= 1 && (key as number) <= MAX_INT32)
      );
  }
}

/**
 * The position `text` stands for in the list of `sort` and `filter`: 400 `Invalid cursor` when it is
 * not a cursor of this service, or one of another query (another sort, other filters, another project).
 */
export function decodeListCursor(text: string, filter: TicketFilter, sort: SortOrder): ListPosition {
  const invalid = (message = INVALID_CURSOR) => invalidParameter('cursor', message);
  if (text.length > MAX_CURSOR_LENGTH) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid();
  const { f, k, i } = parsed as Record<string, unknown>;
  if (
    typeof f !== 'string' ||
    !Number.isSafeInteger(i) ||
    (i as number) < 1 ||
    (i as number) > MAX_INT32 ||
    !(k === null || typeof k === 'string' || typeof k === 'number')
  )
    throw invalid();
  const position = { key: k, id: i as number };
  // Node's base64url decoder skips stray characters and JSON allows spacing: one spelling only.
  if (encodeListCursor(f, position) !== text) throw invalid();
  if (f !== queryFingerprint(filter, sort)) throw invalid(CURSOR_OF_ANOTHER_QUERY);
  if (!fitsSort(sort.field, k)) throw invalid();
  return position;
}
