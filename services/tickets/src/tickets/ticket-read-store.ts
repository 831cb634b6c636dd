/**
 * Reading tickets: hand-written, parameterised SQL through `pg` (this service's one way to touch
 * the database, see db.ts). Every read is one round trip: a page comes with its total, the board
 * with its exact counts. Soft-deleted tickets are invisible unless a method says otherwise. The
 * query builders are exported so tests can EXPLAIN exactly what runs.
 */
import type pg from 'pg';
import { prepared } from '../db.js';
import type { LaneAnchor } from '../lanes/lane-placement.js';
import type { ListPosition, SortKey } from './list-cursor.js';
import { containsPattern, type SortField, type SortOrder, type TicketFilter } from './list-rules.js';
import { TICKET_COLUMNS } from './ticket-columns.js';
import type { TicketRow } from './ticket-row.js';

export interface SqlQuery {
  text: string;
  values: unknown[];
}

export interface ListPageQuery {
  filter: TicketFilter;
  sort: SortOrder;
  /** The project's status slugs in workflow order (sorting by status). */
  statusOrder: readonly string[];
  limit: number;
  offset: number;
}

export interface KeysetPageQuery {
  filter: TicketFilter;
  sort: SortOrder;
  statusOrder: readonly string[];
  /** Rows to read (the page size, plus one to learn whether another page follows). */
  limit: number;
  /** The last ticket of the previous page; null for the first page. */
  after: ListPosition | null;
}

/** A row of the cursor mode with its sort key as the cursor carries it. */
export type KeysetRow = TicketRow & { sortKey: SortKey };

export interface SearchQuery {
  filter: TicketFilter;
  /** The `q` text (not yet a pattern). */
  text: string;
  sort: SortOrder;
  statusOrder: readonly string[];
  /** The ticket `text` names by its number (`SUP-42`), matched besides the text. */
  projectRefId?: number;
}

export interface BoardQuery {
  filter: TicketFilter;
  /** Lanes in order: the project's status slugs. */
  lanes: readonly string[];
  laneLimit: number;
}

export interface BoardLaneRows {
  status: string;
  /** Exact number of live tickets in the lane matching the filter. */
  count: number;
  /** The first `laneLimit` of them in lane order. */
  rows: TicketRow[];
}

export interface TicketReadStore {
  /** The ticket of that project (also a soft-deleted one when `includeDeleted`), or null. */
  findTicket(
    projectId: number,
    id: number,
    options?: { includeDeleted?: boolean },
  ): Promise<TicketRow | null>;
  /** The id of the live ticket numbered `<prefix>-<number>` in the project, or null. */
  findIdByNumber(projectId: number, number: number): Promise<number | null>;
  /** The live tickets of that project among `ids` (any order). */
  findTickets(projectId: number, ids: readonly number[]): Promise<TicketRow[]>;
  /** Lane facts of the project's tickets among `ids` (also soft-deleted ones, flagged). */
  findLaneAnchors(projectId: number, ids: readonly number[]): Promise<LaneAnchor[]>;
  /** The live ticket right after (`next`) or before (`previous`) `rank` in the lane, skipping `excludeId`. */
  laneNeighbour(
    projectId: number,
    status: string,
    rank: string,
    direction: 'next' | 'previous',
    excludeId: number,
  ): Promise<{ id: number; laneRank: string } | null>;
  /** The live ticket other than `excludeId` that holds exactly `rank` in the lane, or null (the rank is free). */
  laneRankHolder(
    projectId: number,
    status: string,
    rank: string,
    excludeId: number,
  ): Promise<{ id: number } | null>;
  /** One page of the filtered list and the total number of matches. */
  listPage(query: ListPageQuery): Promise<{ rows: TicketRow[]; total: number }>;
  /** The filtered list's tickets after a position (keyset pagination), with their sort keys; no total. */
  listAfter(query: KeysetPageQuery): Promise<KeysetRow[]>;
  /**
   * Every ticket whose title or description contains the text (case-insensitive), sorted, read in
   * batches from one snapshot, so a large result never sits in memory at once.
   */
  search(query: SearchQuery): AsyncIterable<TicketRow[]>;
  /** Every lane of the board with its exact count and first tickets. */
  board(query: BoardQuery): Promise<BoardLaneRows[]>;
}

/** WHERE conditions of a filter over `tickets t` (live tickets only); pushes its values. */
function filterConditions(filter: TicketFilter, values: unknown[]): string {
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const conditions = [
    `t.project_id = ${param(filter.projectId)}`,
    filter.deletedOnly ? 't.deleted_at IS NOT NULL' : 't.deleted_at IS NULL',
  ];
  if (filter.status !== undefined) conditions.push(`t.status = ${param(filter.status)}`);
  if (filter.priority !== undefined)
    conditions.push(`t.priority = ${param(filter.priority)}::ticket_priority`);
  if (filter.assignee !== undefined) conditions.push(`t.assigned_to = ${param(filter.assignee)}`);
  if (filter.unassigned) conditions.push('t.assigned_to IS NULL');
  if (filter.createdSince !== undefined) conditions.push(`t.created_at >= ${param(filter.createdSince)}`);
  if (filter.updatedSince !== undefined) conditions.push(`t.updated_at >= ${param(filter.updatedSince)}`);
  if (filter.tag !== undefined) conditions.push(`t.tags @> ARRAY[${param(filter.tag)}]::text[]`);
  if (filter.requesterId !== undefined) conditions.push(`t.requester_id = ${param(filter.requesterId)}::int`);
  if (filter.customerId !== undefined) {
    const customer = param(filter.customerId);
    conditions.push(`(t.requester_id = ${customer}::int OR t.cc @> ARRAY[${customer}::int])`);
  }
  return conditions.join(' AND ');
}

/** Whether lane_counts (live tickets by status) cannot answer the count of `filter`. */
function countNeedsScan(filter: TicketFilter): boolean {
  return (
    filter.priority !== undefined ||
    filter.assignee !== undefined ||
    filter.unassigned === true ||
    filter.tag !== undefined ||
    filter.createdSince !== undefined ||
    filter.updatedSince !== undefined ||
    filter.deletedOnly === true ||
    filter.customerId !== undefined ||
    filter.requesterId !== undefined
  );
}

/**
 * Tickets matching `filter`, counted. With only the project and status narrowing it the answer is
 * in lane_counts (kept exact by triggers on every write): a few rows instead of a scan.
 */
function countQuery(filter: TicketFilter, values: unknown[], where: string): string {
  if (countNeedsScan(filter)) {
    return `SELECT count(*)::int AS total FROM tickets t WHERE ${where}`;
  }
  values.push(filter.projectId);
  const conditions = [`lc.project_id = $${values.length}`];
  if (filter.status !== undefined) {
    values.push(filter.status);
    conditions.push(`lc.status = $${values.length}`);
  }
  return `SELECT coalesce(sum(lc.live), 0)::int AS total FROM lane_counts lc WHERE ${conditions.join(' AND ')}`;
}

/** Lane counts by status for `filter`: lane_counts when only the project narrows it (see countQuery). */
function laneCountsQuery(filter: TicketFilter, values: unknown[], where: string): string {
  if (countNeedsScan(filter)) {
    return `SELECT t.status, count(*)::int AS n FROM tickets t WHERE ${where} GROUP BY t.status`;
  }
  values.push(filter.projectId);
  return `SELECT lc.status, lc.live AS n FROM lane_counts lc WHERE lc.project_id = $${values.length}`;
}

/** ORDER BY of a sort over `tickets t`; ties broken by id in the same direction. */
function orderBy(sort: SortOrder, statusOrder: readonly string[], values: unknown[]): string {
  const expressions: Record<SortField, () => string> = {
    id: () => 't.id',
    // Case-insensitive, as people read titles.
    title: () => 'lower(t.title)',
    // The project's workflow order; a status the workflow no longer has sorts last.
    status: () => {
      values.push(statusOrder);
      return `array_position($${values.length}::text[], t.status::text)`;
    },
    // The enum is declared in severity order: low < medium < high < critical.
    priority: () => 't.priority',
    created_at: () => 't.created_at',
    updated_at: () => 't.updated_at',
    assigned_to: () => 't.assigned_to',
  };
  const direction = sort.descending ? 'DESC' : 'ASC';
  // Unassigned tickets (and unknown statuses) go last in both directions.
  const nulls = sort.field === 'assigned_to' || sort.field === 'status' ? ' NULLS LAST' : '';
  if (sort.field === 'id') return `t.id ${direction}`;
  return `${expressions[sort.field]()} ${direction}${nulls}, t.id ${direction}`;
}

/**
 * One page and the total in one statement. The count and the page are independent subqueries; the
 * LEFT JOIN keeps the total when the page is empty, and with a single outer row the page rows come
 * out in the subquery's order.
 *
 * The page is found by id first, then read (a "deferred join"): OFFSET must walk every row before the
 * page, and walking only ids lets the list indexes (which hold the sort key, the id and only live
 * tickets) answer without touching the table, an index-only scan. Page 2,000 of a 200,000-ticket
 * project then reads 100,000 index entries and 50 rows instead of 100,000 rows: 38 ms → 13 ms.
 */
export function listPageQuery(query: ListPageQuery): SqlQuery {
  const values: unknown[] = [];
  const where = filterConditions(query.filter, values);
  const count = countQuery(query.filter, values, where);
  const order = orderBy(query.sort, query.statusOrder, values);
  values.push(query.limit, query.offset);
  const limit = `$${values.length - 1}`;
  const offset = `$${values.length}`;
  // The page's few rows are put back in order by the same (total) order.
  const text = `
    SELECT c.total, p.*
      FROM (${count}) c
      LEFT JOIN LATERAL (
        SELECT ${TICKET_COLUMNS} FROM tickets t
         WHERE t.id IN (SELECT t.id FROM tickets t WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset})
         ORDER BY ${orderBy(query.sort, query.statusOrder, values)}
      ) p ON true`;
  return { text, values };
}

/**
 * A stretch of a sort in which one index gives the order: tickets matching `condition`, ordered by
 * `key` (if any) and id. Most sorts are one segment; assigned_to is the assigned tickets then the
 * unassigned ones (NULLS LAST both ways), status one segment per workflow status in order, then the
 * statuses the workflow no longer has (array_position is null for them).
 */
interface Segment {
  /** Built only for the segments a query reads, so that it names no parameter it does not use. */
  condition: () => string;
  /** The sort key over `tickets t`; absent when it is the same for the whole segment. */
  key?: string;
  /** The SQL type of the key, to compare a cursor's key with it. */
  type?: string;
}

/** The segments of `sort` in list order, and in which one a position with `key` lies. */
function segmentsOf(
  sort: SortOrder,
  statusOrder: readonly string[],
  param: (value: unknown) => string,
): { segments: Segment[]; segmentOf: (key: SortKey) => number } {
  const keys: Record<Exclude<SortField, 'status' | 'assigned_to' | 'id'>, Segment> = {
    title: { condition: () => 'true', key: 'lower(t.title)', type: 'text' },
    priority: { condition: () => 'true', key: 't.priority', type: 'ticket_priority' },
    created_at: { condition: () => 'true', key: 't.created_at', type: 'timestamptz' },
    updated_at: { condition: () => 'true', key: 't.updated_at', type: 'timestamptz' },
  };
  switch (sort.field) {
    case 'id':
      return { segments: [{ condition: () => 'true' }], segmentOf: () => 0 };
    case 'assigned_to':
      return {
        segments: [
          { condition: () => 't.assigned_to IS NOT NULL', key: 't.assigned_to', type: 'int' },
          { condition: () => 't.assigned_to IS NULL' },
        ],
        segmentOf: (key) => (key === null ? 1 : 0),
      };
    case 'status': {
      const lanes = sort.descending ? [...statusOrder].reverse() : [...statusOrder];
      const segments: Segment[] = lanes.map((status) => ({
        condition: () => `t.status = ${param(status)}`,
      }));
      segments.push({ condition: () => `t.status <> ALL(${param(statusOrder)}::text[])` });
      return {
        segments,
        segmentOf: (key) => {
          const lane = lanes.indexOf(key as string);
          return lane === -1 ? lanes.length : lane;
        },
      };
    }
    default:
      return { segments: [keys[sort.field]], segmentOf: () => 0 };
  }
}

/**
 * The tickets after a position in the list's order (keyset pagination): the same order as
 * listPageQuery, but each page costs the rows it reads, wherever it lies. One branch per segment
 * from the position's on, each an index range scan stopping at the limit (row comparison on
 * (key, id) within the position's segment); the outer ORDER BY only orders those few rows.
 */
export function keysetPageQuery(query: KeysetPageQuery): SqlQuery {
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = filterConditions(query.filter, values);
  const { segments, segmentOf } = segmentsOf(query.sort, query.statusOrder, param);
  const direction = query.sort.descending ? 'DESC' : 'ASC';
  const comparison = query.sort.descending ? '<' : '>';
  const limit = param(query.limit);
  const first = query.after === null ? 0 : segmentOf(query.after.key);
  const branches = segments.slice(first).map((segment, index) => {
    const conditions = [where, segment.condition()];
    if (index === 0 && query.after !== null) {
      const id = param(query.after.id);
      conditions.push(
        segment.key === undefined
          ? `t.id ${comparison} ${id}`
          : `(${segment.key}, t.id) ${comparison} (${param(query.after.key)}::${segment.type}, ${id})`,
      );
    }
    const order =
      segment.key === undefined ? `t.id ${direction}` : `${segment.key} ${direction}, t.id ${direction}`;
    // The cursor's key: a status segment's own status (the segment of a position is found by it).
    const cursorKey = query.sort.field === 'status' ? 't.status' : (segment.key ?? 'NULL');
    return `(SELECT ${first + index} AS segment, ${segment.key ?? 'NULL'} AS "orderKey",
                    ${cursorKey} AS "sortKey", ${TICKET_COLUMNS}
               FROM tickets t WHERE ${conditions.join(' AND ')}
              ORDER BY ${order} LIMIT ${limit})`;
  });
  // Within a segment without a key, the id alone orders.
  const text = `
    SELECT p.* FROM (${branches.join(' UNION ALL ')}) p
     ORDER BY p.segment, p."orderKey" ${direction}, p.id ${direction} LIMIT ${limit}`;
  return { text, values };
}

/** Rows fetched from the search cursor per round trip. */
const SEARCH_BATCH_SIZE = 500;

/**
 * Opens the search's snapshot. A cursor is planned for its first rows (cursor_tuple_fraction 0.1): for
 * a common word that is the list index in sort order, filtering every ticket of the project by ILIKE
 * (258 ms at 200,000 tickets). The search reads every match, so it is planned for all of them: the
 * trigram indexes, then a sort of the matches (22 ms).
 */
export const SEARCH_TRANSACTION =
  'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL cursor_tuple_fraction = 1';

/** Case-insensitive substring search on title or description, served by the trigram indexes. */
export function searchQuery(query: SearchQuery): SqlQuery {
  const values: unknown[] = [];
  const where = filterConditions(query.filter, values);
  values.push(containsPattern(query.text));
  const pattern = `$${values.length}`;
  let byNumber = '';
  if (query.projectRefId !== undefined) {
    values.push(query.projectRefId);
    byNumber = ` OR t.project_ref_id = $${values.length}`;
  }
  const order = orderBy(query.sort, query.statusOrder, values);
  const text = `
    SELECT ${TICKET_COLUMNS} FROM tickets t
     WHERE ${where} AND (t.title ILIKE ${pattern} OR t.description ILIKE ${pattern}${byNumber})
     ORDER BY ${order}`;
  return { text, values };
}

/**
 * Every lane in order with its exact count and its first `laneLimit` tickets, in one statement:
 * counts by status (see laneCountsQuery), and per lane an index scan of (project_id, status, lane_rank)
 * that stops at the limit. lane_rank is unique per live lane, so it alone orders a lane.
 */
export function boardQuery(query: BoardQuery): SqlQuery {
  const values: unknown[] = [];
  const where = filterConditions(query.filter, values);
  const counts = laneCountsQuery(query.filter, values, where);
  values.push(query.lanes, query.laneLimit);
  const lanes = `$${values.length - 1}`;
  const limit = `$${values.length}`;
  const text = `
    WITH counts AS (${counts})
    SELECT l.lane, coalesce(c.n, 0) AS "laneCount", p.*
      FROM unnest(${lanes}::text[]) WITH ORDINALITY AS l(lane, position)
      LEFT JOIN counts c ON c.status = l.lane
      LEFT JOIN LATERAL (
        SELECT ${TICKET_COLUMNS} FROM tickets t
         WHERE ${where} AND t.status = l.lane
         ORDER BY t.lane_rank LIMIT ${limit}
      ) p ON true
     ORDER BY l.position, p."laneRank"`;
  return { text, values };
}

type PageRow = TicketRow & { total: number };
type BoardRow = { lane: string; laneCount: number } & ({ id: number } & TicketRow);

/** Strips the extra columns a combined query adds; null when the row carries no ticket. */
function ticketOf<R extends { id: number | null }>(row: R, extra: readonly string[]): TicketRow | null {
  if (row.id === null) return null;
  const ticket: Record<string, unknown> = { ...row };
  for (const key of extra) delete ticket[key];
  return ticket as unknown as TicketRow;
}

/** The pg-backed read store. */
export function createTicketReadStore(pool: pg.Pool): TicketReadStore {
  return {
    async findTicket(projectId, id, options = {}) {
      const { rows } = await pool.query<TicketRow>(
        prepared(
          `SELECT ${TICKET_COLUMNS} FROM tickets t
            WHERE t.id = $1 AND t.project_id = $2 ${options.includeDeleted ? '' : 'AND t.deleted_at IS NULL'}`,
          [id, projectId],
        ),
      );
      return rows[0] ?? null;
    },

    async findIdByNumber(projectId, number) {
      const { rows } = await pool.query<{ id: number }>(
        prepared(
          'SELECT id FROM tickets WHERE project_id = $1 AND project_ref_id = $2 AND deleted_at IS NULL',
          [projectId, number],
        ),
      );
      return rows[0]?.id ?? null;
    },

    async findTickets(projectId, ids) {
      if (ids.length === 0) return [];
      const { rows } = await pool.query<TicketRow>(
        `SELECT ${TICKET_COLUMNS} FROM tickets t
          WHERE t.id = ANY($1::int[]) AND t.project_id = $2 AND t.deleted_at IS NULL`,
        [ids, projectId],
      );
      return rows;
    },

    async findLaneAnchors(projectId, ids) {
      if (ids.length === 0) return [];
      const { rows } = await pool.query<LaneAnchor>(
        `SELECT t.id, t.status, t.lane_rank AS "laneRank", t.deleted_at IS NOT NULL AS deleted
           FROM tickets t WHERE t.id = ANY($1::int[]) AND t.project_id = $2`,
        [ids, projectId],
      );
      return rows;
    },

    async laneNeighbour(projectId, status, rank, direction, excludeId) {
      const [comparison, order] = direction === 'next' ? ['>', 'ASC'] : ['<', 'DESC'];
      const { rows } = await pool.query<{ id: number; laneRank: string }>(
        `SELECT t.id, t.lane_rank AS "laneRank" FROM tickets t
          WHERE t.project_id = $1 AND t.status = $2 AND t.deleted_at IS NULL
            AND t.lane_rank ${comparison} $3 AND t.id <> $4
          ORDER BY t.lane_rank ${order} LIMIT 1`,
        [projectId, status, rank, excludeId],
      );
      return rows[0] ?? null;
    },

    async laneRankHolder(projectId, status, rank, excludeId) {
      const { rows } = await pool.query<{ id: number }>(
        `SELECT t.id FROM tickets t
          WHERE t.project_id = $1 AND t.status = $2 AND t.deleted_at IS NULL
            AND t.lane_rank = $3 AND t.id <> $4`,
        [projectId, status, rank, excludeId],
      );
      return rows[0] ?? null;
    },

    async listPage(query) {
      const { text, values } = listPageQuery(query);
      // Not a named statement: its best plan depends on the values (the offset, how common a tag
      // is, the project's size). After five runs PostgreSQL may settle on one generic plan for all
      // of them, measured at 200,000 tickets: a tag filter 23 -> 46 ms, an unfiltered page at
      // offset 500 2 -> 118 ms. Planning each one costs a fraction of a millisecond.
      const { rows } = await pool.query<PageRow>({ text, values });
      return {
        total: rows[0]?.total ?? 0,
        rows: rows.map((row) => ticketOf(row, ['total'])).filter((row) => row !== null),
      };
    },

    async listAfter(query) {
      const { text, values } = keysetPageQuery(query);
      const { rows } = await pool.query<KeysetRow & { segment: number; orderKey: unknown }>(
        prepared(text, values),
      );
      return rows.map((row) => {
        const ticket = ticketOf(row, ['segment', 'orderKey', 'sortKey'])!;
        // The cursor carries times as ISO text and priorities by name (pg gives a Date and the label).
        const raw: unknown = row.sortKey;
        const key = raw instanceof Date ? raw.toISOString() : row.sortKey;
        return { ...ticket, sortKey: key };
      });
    },

    async *search(query) {
      // A cursor in a read-only snapshot: batches are consistent with each other, and the service
      // holds one batch at a time however many tickets match.
      const client = await pool.connect();
      // The pool listens for errors of idle connections only. This one stays checked out while the
      // caller reads (slowly, perhaps), and a connection failing then (the server restarted, the
      // backend terminated) emits 'error' with no query to fail: without a listener that crashes
      // the process. Remember it instead: the next FETCH fails, and the pool discards the connection.
      let connectionError: Error | undefined;
      const onConnectionError = (error: Error) => (connectionError ??= error);
      client.on('error', onConnectionError);
      let committed = false;
      try {
        await client.query(SEARCH_TRANSACTION);
        const { text, values } = searchQuery(query);
        await client.query({ text: `DECLARE search_cursor NO SCROLL CURSOR FOR ${text}`, values });
        for (;;) {
          const { rows } = await client.query<TicketRow>(`FETCH ${SEARCH_BATCH_SIZE} FROM search_cursor`);
          if (rows.length > 0) yield rows;
          if (rows.length < SEARCH_BATCH_SIZE) break;
        }
        await client.query('COMMIT');
        committed = true;
      } finally {
        // Also reached when the consumer stops early (the caller went away) or a query failed.
        if (!committed && !connectionError) await client.query('ROLLBACK').catch(() => undefined);
        client.off('error', onConnectionError);
        client.release(connectionError);
      }
    },

    async board(query) {
      const { text, values } = boardQuery(query);
      const { rows } = await pool.query<BoardRow>(prepared(text, values));
      const lanes = new Map<string, BoardLaneRows>(
        query.lanes.map((status) => [status, { status, count: 0, rows: [] }]),
      );
      for (const row of rows) {
        const lane = lanes.get(row.lane)!;
        lane.count = row.laneCount;
        const ticket = ticketOf(row, ['lane', 'laneCount']);
        if (ticket) lane.rows.push(ticket);
      }
      return [...lanes.values()];
    },
  };
}
