/**
 * The newest matches of a full-text query, read newest first in windows of ids.
 *
 * A GIN index returns every match in no order, so `ORDER BY id DESC LIMIT n` over a common word
 * fetches and sorts every matching row of the table (12,000 of 100,000 tickets for "password
 * reset") to keep the newest n. Bounding the id as well lets PostgreSQL AND the text index's bitmap
 * with the primary key's, so a window reads only its own matches. The first window is sized from
 * the matches the caller expects (FIRST_WINDOW_FACTOR x limit ids without an estimate); each next
 * one from the density of matches seen so far (with a margin), four times
 * the last when the last found nothing, and the rest at once while nothing was found. A common
 * word costs a query that reads a little more than it keeps; a rare one, one query when the
 * caller's estimate says it is rare, two otherwise. The rows are exactly the newest `limit`
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
/**
 * Windows are sized for this many times the matches they should hold: reading a few hundred rows
 * too many costs less than a further window, which scans the text index again.
 */
const MARGIN = 2;

/** The rows of every window read, newest first: the newest `limit` matches. */
export async function newestMatches<Row>(
  newestId: number,
  limit: number,
  readWindow: (window: IdWindow) => Promise<Row[]>,
  /**
   * How many rows the caller expects to match (an upper bound or an estimate), when it knows: it
   * only sizes the first window, the answer is exact whatever it says.
   */
  expectedMatches = Infinity,
): Promise<Row[]> {
  const rows: Row[] = [];
  let upTo = newestId;
  // Without an estimate, a first guess; with one, the window that would hold `limit` matches at its
  // density, with the margin (all of it, when the estimate is near the limit).
  let span = Number.isFinite(expectedMatches)
    ? Math.ceil((MARGIN * limit * newestId) / Math.max(expectedMatches, 1))
    : FIRST_WINDOW_FACTOR * limit;
  while (upTo > 0 && rows.length < limit) {
    const above = Math.max(0, upTo - span);
    const found = await readWindow({ above, upTo, limit: limit - rows.length });
    rows.push(...found);
    const density = rows.length / (newestId - above);
    span =
      density === 0
        ? above // nothing yet: the rest at once
        : found.length === 0
          ? 4 * span // matches thin out (a word that went out of use): widen fast
          : Math.ceil((MARGIN * (limit - rows.length)) / density);
    upTo = above;
  }
  return rows;
}
