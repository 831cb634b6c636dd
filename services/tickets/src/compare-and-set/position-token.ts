/**
 * Position tokens (docs/decisions.md, "Exact reverts"): where a ticket stood in its lane, so an
 * exact revert can put it back. A token is opaque to its holders (the assistant keeps it with an
 * action and gives it back); it is internal to the fleet and never sent over HTTP. Inside, it is
 * base64url of JSON `{ v: 1, s: status, r: lane_rank, p: previous ticket id | null, n: next ticket
 * id | null }`: the lane, the ticket's fractional-indexing key there (lanes/lane-placement.ts) and
 * the live tickets directly before and after it at the time.
 *
 * Restoring from a token, in the token's lane (it must be the lane the ticket ends up in):
 * 1. the exact rank, when no other live ticket of the lane holds it now: the ticket is then in the
 *    same place relative to every ticket still in the lane (an untouched lane comes back identical);
 * 2. else directly after the previous neighbour, when it is still in the lane (and between it and
 *    the next neighbour when they are still adjacent);
 * 3. else directly before the next neighbour, when it is still in the lane;
 * 4. else directly after the ticket that now holds the rank (the nearest place to the old one).
 */
import type { FieldErrors } from '@tix/kit';
import { generateKeyBetween } from 'fractional-indexing';
import { rankBetween, type LaneAnchor, type LanePlacement } from '../lanes/lane-placement.js';
import type { TicketDeps } from '../tickets/ticket-steps.js';
import type { TicketRow } from '../tickets/ticket-row.js';

/** What a position token says (see the file header). */
export interface LanePosition {
  status: string;
  rank: string;
  previousId: number | null;
  nextId: number | null;
}

export const INVALID_POSITION_TOKEN = 'Invalid position token';

/** Longest rank a token may carry (keys the service makes are far shorter). */
const MAX_RANK_LENGTH = 200;

/** The token of a position. */
export function encodePositionToken(position: LanePosition): string {
  const body = { v: 1, s: position.status, r: position.rank, p: position.previousId, n: position.nextId };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

function isOptionalId(value: unknown): value is number | null {
  return value === null || (Number.isInteger(value) && (value as number) > 0);
}

/** Whether `rank` is a key the lane order can hold (fractional-indexing validates it). */
function isRank(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_RANK_LENGTH) return false;
  if (!/^[0-9A-Za-z]+$/.test(value)) return false;
  try {
    generateKeyBetween(value, null);
    return true;
  } catch {
    return false;
  }
}

/** The position a token names; records `Invalid position token` under `field` when it names none. */
export function decodePositionToken(
  errors: FieldErrors,
  token: string,
  field = 'position_token',
): LanePosition | undefined {
  let body: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new Error('not base64url');
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    body = undefined;
  }
  const { v, s, r, p, n } = (typeof body === 'object' && body !== null ? body : {}) as Record<
    string,
    unknown
  >;
  if (v !== 1 || typeof s !== 'string' || s === '' || !isRank(r) || !isOptionalId(p) || !isOptionalId(n)) {
    errors.add(field, INVALID_POSITION_TOKEN);
    return undefined;
  }
  return { status: s, rank: r, previousId: p, nextId: n };
}

/** Where `row` stands in its lane now: its rank and its live neighbours. */
export async function positionOf(deps: TicketDeps, row: TicketRow): Promise<LanePosition> {
  const [previous, next] = await Promise.all([
    deps.reads.laneNeighbour(row.projectId, row.status, row.laneRank, 'previous', row.id),
    deps.reads.laneNeighbour(row.projectId, row.status, row.laneRank, 'next', row.id),
  ]);
  return {
    status: row.status,
    rank: row.laneRank,
    previousId: previous?.id ?? null,
    nextId: next?.id ?? null,
  };
}

/** The placement that puts ticket `ticketId` back at `position` (the rules of the file header). */
export async function placementAt(
  deps: TicketDeps,
  projectId: number,
  ticketId: number,
  position: LanePosition,
): Promise<LanePlacement> {
  const lane = position.status;
  const holder = await deps.reads.laneRankHolder(projectId, lane, position.rank, ticketId);
  if (!holder) return { kind: 'at', rank: position.rank };

  const neighbourIds = [position.previousId, position.nextId].filter(
    (id): id is number => id !== null && id !== ticketId,
  );
  const anchors = new Map<number, LaneAnchor>(
    (await deps.reads.findLaneAnchors(projectId, neighbourIds)).map((anchor) => [anchor.id, anchor]),
  );
  const inLane = (id: number | null) => {
    const anchor = id === null ? undefined : anchors.get(id);
    return anchor && !anchor.deleted && anchor.status === lane ? anchor : undefined;
  };
  const neighbour = (rank: string, direction: 'next' | 'previous') =>
    deps.reads.laneNeighbour(projectId, lane, rank, direction, ticketId);

  const previous = inLane(position.previousId);
  if (previous) {
    // Its follower now: the old next neighbour when they are still adjacent, or whoever came between.
    const follower = await neighbour(previous.laneRank, 'next');
    return { kind: 'at', rank: rankBetween(previous.laneRank, follower?.laneRank ?? null) };
  }
  const next = inLane(position.nextId);
  if (next) {
    const predecessor = await neighbour(next.laneRank, 'previous');
    return { kind: 'at', rank: rankBetween(predecessor?.laneRank ?? null, next.laneRank) };
  }
  const follower = await neighbour(position.rank, 'next');
  return { kind: 'at', rank: rankBetween(position.rank, follower?.laneRank ?? null) };
}
