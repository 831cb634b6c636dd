/**
 * Reading tickets: one ticket, a filtered and sorted page with its pagination, or every ticket whose
 * title or description contains a text (no pagination, streamed).
 */
import { pageWindow, paginationOf } from '@tix/protos';
import type { LookupCaller } from '../lookup/lookup-directory.js';
import type { ProjectWorkflow } from '../lookup/workflow.js';
import { CURSOR_WITH_PAGE, decodeListCursor, encodeListCursor, queryFingerprint } from './list-cursor.js';
import {
  checkFilter,
  checkSearchText,
  invalidParameter,
  parseSort,
  projectRefOf,
  type FilterParameters,
} from './list-rules.js';
import { loadLiveTicket, type ProjectTicket, type TicketDeps } from './ticket-steps.js';
import type { TicketRow } from './ticket-row.js';

/** The live ticket of the project; 404 `Ticket not found` otherwise. */
export async function getTicket(
  deps: TicketDeps,
  address: { projectId: number; id: number; number?: number },
  caller: LookupCaller,
): Promise<ProjectTicket> {
  if (address.number !== undefined) {
    const id = await deps.reads.findIdByNumber(address.projectId, address.number);
    return getTicket(deps, { projectId: address.projectId, id: id ?? 0 }, caller);
  }
  // The read starts at once (the project usually comes from the cache); an unknown project is
  // still reported first.
  const pending = loadLiveTicket(deps, address.projectId, address.id);
  pending.catch(() => undefined);
  const project = await deps.lookup.project(address.projectId, caller);
  return { row: await pending, project };
}

export interface ListTicketsInput extends FilterParameters {
  projectId: number;
  page: { page?: number; per_page?: number } | null;
  sort: string;
  /** Cursor mode: empty for the first page, else the previous page's `nextCursor`. */
  cursor?: string;
}

export type TicketList =
  | { project: ProjectWorkflow; rows: TicketRow[]; pagination: ReturnType<typeof paginationOf> }
  /** Cursor mode: no total (counting would cost every page a scan); `nextCursor` absent at the end. */
  | { project: ProjectWorkflow; rows: TicketRow[]; nextCursor?: string };

/** A page of the project's tickets; 400 naming a bad parameter. */
export async function listTickets(
  deps: TicketDeps,
  input: ListTicketsInput,
  caller: LookupCaller,
): Promise<TicketList> {
  const project = await deps.lookup.project(input.projectId, caller);
  const sort = parseSort(input.sort);
  const filter = checkFilter(project, input);
  const statusOrder = project.statuses.map((status) => status.slug);
  const window = pageWindow(input.page);
  if (input.cursor !== undefined) {
    if (input.page?.page) throw invalidParameter('cursor', CURSOR_WITH_PAGE);
    const fingerprint = queryFingerprint(filter, sort);
    const after = input.cursor === '' ? null : decodeListCursor(input.cursor, filter, sort);
    // One row more than the page tells whether another page follows, so the last page says so.
    const rows = await deps.reads.listAfter({ filter, sort, statusOrder, limit: window.perPage + 1, after });
    const page = rows.slice(0, window.perPage);
    const last = page.at(-1);
    return {
      project,
      rows: page.map(({ sortKey: _key, ...row }) => row),
      ...(rows.length > window.perPage && last
        ? { nextCursor: encodeListCursor(fingerprint, { key: last.sortKey, id: last.id }) }
        : {}),
    };
  }
  const { rows, total } = await deps.reads.listPage({
    filter,
    sort,
    statusOrder,
    limit: window.perPage,
    offset: window.offset,
  });
  return { project, rows, pagination: paginationOf(total, window) };
}

export interface SearchTicketsInput extends FilterParameters {
  projectId: number;
  q: string;
  sort: string;
}

/**
 * Every live ticket of the project whose title or description contains `q`, in sort order, in
 * batches. Parameters are checked (400 naming the bad one) before the first batch is read.
 */
export async function searchTickets(
  deps: TicketDeps,
  input: SearchTicketsInput,
  caller: LookupCaller,
): Promise<{ project: ProjectWorkflow; batches: AsyncIterable<TicketRow[]> }> {
  const project = await deps.lookup.project(input.projectId, caller);
  const sort = parseSort(input.sort);
  const filter = checkFilter(project, input);
  const text = checkSearchText(input.q);
  const statusOrder = project.statuses.map((status) => status.slug);
  const projectRefId = projectRefOf(project.prefix, text);
  return {
    project,
    batches: deps.reads.search({
      filter,
      text,
      sort,
      statusOrder,
      ...(projectRefId === undefined ? {} : { projectRefId }),
    }),
  };
}
