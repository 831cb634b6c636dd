/**
 * The ticket service's database handle: one `pg` Pool. The service talks to PostgreSQL only through
 * hand-written, parameterised SQL in its store modules (tickets/ticket-read-store.ts and
 * tickets/ticket-write-store.ts); Prisma defines the schema and migrations but is not used at run
 * time, because the hot paths (get, list, create, board) need one round trip per read and a short
 * transaction per write.
 */
import pg from 'pg';
import type { Logger } from '@tix/kit';

export interface TicketsDatabase {
  pool: pg.Pool;
  /** Ends the pool; safe to call twice. */
  close(): Promise<void>;
}

/** Opens a pool on `connectionString` (no connection is made until first use). */
export function openDatabase(
  connectionString: string,
  options: { logger: Logger; maxConnections?: number },
): TicketsDatabase {
  const pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 20 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (error) => options.logger.warn({ err: error }, 'idle database connection failed'));
  let closing: Promise<void> | undefined;
  return {
    pool,
    close() {
      closing ??= pool.end();
      return closing;
    },
  };
}

const statementNames = new Map<string, string>();

/**
 * `text` as a named statement: each pooled connection parses and plans it once and then only binds
 * and executes it, which takes a measurable share of the database's time off the hot paths. The
 * service builds its SQL from a bounded set of shapes, so the number of names stays small.
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `tickets_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}

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

/**
 * Runs `work` in a transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it
 * throws. Races the caller may retry surface as WriteConflict.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw asWriteConflict(error) ?? error;
  } finally {
    client.release();
  }
}
