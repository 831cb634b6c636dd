/**
 * The newest matches of a full-text query, read newest first in windows of ids.
 *
 * A GIN index returns every match in no order, so `ORDER BY id DESC LIMIT n` over a common word
 * fetches and sorts every matching row of the table (12,000 of 100,000 tickets for "password
 * reset") to keep the newest n. Bounding the id as well lets PostgreSQL AND the text index's bitmap
 * with the primary key's, so a window reads only its own matches. The first window spans
 * FIRST_WINDOW_FACTOR x limit ids; each next one is sized from the density of matches seen so far
 * (half as much again as it should need, at least double the last), and one that found nothing
 * reaches the oldest id at once. A common word costs a query that reads a little more than it
 * keeps, a rare one two queries over its few matches (one, when the caller knows an upper bound
 * of the matches near the limit). The rows are exactly the newest `limit`
 * matches, as one unbounded query would return them.
 */

export interface IdWindow {
  /** Ids above this (exclusive). */
  above: number;
  /** Ids up to this (inclusive). */
  upTo: number;
  /** The most rows still wanted, newest first. */
  limit: number;
}

const FIRST_WINDOW_FACTOR = 10;

/** The rows of every window read, newest first: the newest `limit` matches. */
export async function newestMatches<Row>(
  newestId: number,
  limit: number,
  readWindow: (window: IdWindow) => Promise<Row[]>,
  /** How many rows match at most, when the caller knows (sizes the first window). */
  matchesAtMost = Infinity,
): Promise<Row[]> {
  const rows: Row[] = [];
  let upTo = newestId;
  // Without a bound, a first guess; with one, the window that would hold `limit` matches at the
  // bound's density, half as much again (all of it, when the bound is near the limit).
  let span = Number.isFinite(matchesAtMost)
    ? Math.ceil((1.5 * limit * newestId) / Math.max(matchesAtMost, 1))
    : FIRST_WINDOW_FACTOR * limit;
  while (upTo > 0 && rows.length < limit) {
    const above = Math.max(0, upTo - span);
    rows.push(...(await readWindow({ above, upTo, limit: limit - rows.length })));
    const density = rows.length / (newestId - above);
    span = density > 0 ? Math.max(2 * span, Math.ceil((1.5 * (limit - rows.length)) / density)) : above;
    upTo = above;
  }
  return rows;
}
