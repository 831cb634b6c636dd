/**
 * What the ticket stores add to the kit's database helpers (the pool, transactions): named statements
 * for the hot paths (get, list, create, board: one round trip per read, a short transaction per
 * write) and the write races a caller may retry.
 */
import { namedStatements } from '@tix/kit';

/**
 * `text` as a named statement: each pooled connection parses and plans it once. The service builds
 * its SQL from a bounded set of shapes, so the number of names stays small.
 */
export const prepared = namedStatements('tickets');

/**
 * A write that lost a race it can safely retry from the start: another transaction took the same
 * lane position, changed a row the write relies on, or PostgreSQL broke a deadlock / serialization
 * failure by aborting this one.
 */
export class WriteConflict extends Error {
  override readonly name = 'WriteConflict';

  constructor(
    readonly reason: 'lane_rank_taken' | 'deadlock' | 'serialization' | 'guard_moved' | 'version_moved',
    options?: { cause?: unknown },
  ) {
    super(`write conflict: ${reason}`, options);
  }
}

/** The unique index that keeps one live ticket per lane position. */
export const LANE_RANK_INDEX = 'tickets_lane_rank_key';

/** The WriteConflict a database error stands for, if it is one of those races. */
export function asWriteConflict(error: unknown): WriteConflict | undefined {
  const { code, constraint } = (error ?? {}) as { code?: string; constraint?: string };
  if (code === '23505' && constraint === LANE_RANK_INDEX)
    return new WriteConflict('lane_rank_taken', { cause: error });
  if (code === '40P01') return new WriteConflict('deadlock', { cause: error });
  if (code === '40001') return new WriteConflict('serialization', { cause: error });
  return undefined;
}
