/**
 * One poll of a numbered log after a cursor, the same for the activity feed and the event stream.
 * The head is read first; everything up to it has committed (log-store.ts), so:
 * - no cursor: nothing yet, the cursor is the head ("from now");
 * - a cursor below the retention floor lost entries: expired (the caller must reload);
 * - otherwise the rows in (cursor, head], at most `limit`; the next cursor is the last row's number
 *   when more remain, else the head, which also steps over rows a filter left out.
 */
export interface LogPosition {
  /** The newest number. */
  head: number;
  /** The highest number retention removed. */
  floor: number;
}

export interface PollResult<Row> {
  rows: Row[];
  cursor: number;
  hasMore: boolean;
  expired: boolean;
}

export async function pollLog<Row>(options: {
  position: LogPosition;
  after: number | undefined;
  limit: number;
  /** At most `limit` rows numbered in (after, head], in number order. */
  read: (after: number, head: number, limit: number) => Promise<Row[]>;
  numberOf: (row: Row) => number;
}): Promise<PollResult<Row>> {
  const { position, after, limit } = options;
  if (after === undefined) return { rows: [], cursor: position.head, hasMore: false, expired: false };
  if (after < position.floor) return { rows: [], cursor: after, hasMore: false, expired: true };
  // Nothing new: the common poll answers without reading the log.
  if (after >= position.head) return { rows: [], cursor: after, hasMore: false, expired: false };
  const rows = await options.read(after, position.head, limit + 1);
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return {
    rows: page,
    cursor: hasMore && last !== undefined ? options.numberOf(last) : position.head,
    hasMore,
    expired: false,
  };
}
