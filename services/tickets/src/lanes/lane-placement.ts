/**
 * Lane order: each live ticket has a fractional-indexing key (lane_rank) and a lane lists its
 * tickets by that key. Placing a ticket computes one new key between its new neighbours, so a move
 * writes one row and never renumbers a lane; new tickets and moves without placement go to the end
 * of the target lane. Keys are ASCII and compare byte-wise (the column is COLLATE "C").
 *
 * Keys are unique per live lane (a unique index). Appends read the lane's last key without a lock,
 * so two appends at the same moment start from the same last key; each appended key therefore
 * carries a random fractional suffix, which keeps them distinct (and both after that last key).
 * The rare collision left is refused by the index and retried.
 */
import { BASE_62_DIGITS, generateKeyBetween, generateNKeysBetween } from 'fractional-indexing';

/** Where a change puts the ticket in its (possibly new) lane. */
export type LanePlacement =
  | { kind: 'keep' }
  /** After the last live ticket of the lane (computed inside the write transaction). */
  | { kind: 'end' }
  | { kind: 'at'; rank: string };

/** A ticket named by after_id / before_id, as the lane rules need it (null when it does not exist). */
export interface LaneAnchor {
  id: number;
  status: string;
  laneRank: string;
  deleted: boolean;
}

/** Random fractional digits to append to an integer key (never ending in the zero digit, as keys must not). */
export function randomSuffix(length = 3, random: () => number = Math.random): string {
  let suffix = '';
  for (let index = 0; index < length; index++) {
    const lowest = index === length - 1 ? 1 : 0;
    suffix += BASE_62_DIGITS[lowest + Math.floor(random() * (BASE_62_DIGITS.length - lowest))];
  }
  return suffix;
}

/**
 * `count` ascending keys after `tail` (null: the lane is empty), for tickets joining the end of a
 * lane: consecutive integer keys, each with a random suffix (see the file header).
 */
export function appendRanks(
  tail: string | null,
  count: number,
  random: () => number = Math.random,
): string[] {
  return generateNKeysBetween(tail, null, count).map((key) => key + randomSuffix(3, random));
}

/** The key of one ticket joining the end of a lane after `tail`. */
export function appendRank(tail: string | null, random: () => number = Math.random): string {
  return appendRanks(tail, 1, random)[0]!;
}

/** A key strictly between `lower` and `upper` (either may be null: the start / the end of the lane). */
export function rankBetween(lower: string | null, upper: string | null): string {
  return generateKeyBetween(lower, upper);
}

/**
 * Why `anchor` (named by `anchorId`) cannot serve as a placement reference in lane `targetStatus`
 * for ticket `movingId`, or undefined when it can.
 */
export function anchorProblem(
  anchorId: number,
  anchor: LaneAnchor | undefined,
  targetStatus: string,
  movingId: number,
): string | undefined {
  if (anchorId === movingId) return 'A ticket cannot be placed relative to itself';
  if (!anchor || anchor.deleted || anchor.status !== targetStatus)
    return `Ticket ${anchorId} is not in the ${targetStatus} lane`;
  return undefined;
}

/**
 * With both after_id and before_id: `before` must directly follow `after` in the lane (ignoring the
 * ticket being moved). `followerOfAfter` is the ticket that follows `after` now, or null.
 */
export function adjacencyProblem(
  afterId: number,
  beforeId: number,
  followerOfAfter: { id: number } | null,
): string | undefined {
  if (followerOfAfter?.id === beforeId) return undefined;
  return `Ticket ${beforeId} does not directly follow ticket ${afterId} in the lane`;
}
