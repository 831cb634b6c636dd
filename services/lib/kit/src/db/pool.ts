/**
 * A service's own database at run time: one `pg` pool, transactions, named statements. Every service
 * talks to PostgreSQL through hand-written, parameterised SQL in its store modules (docs/decisions.md,
 * "One database style"); Prisma defines the schemas and migrations only.
 */
import pg from 'pg';
import type { Logger } from '../logger.js';

export interface ServiceDatabase {
  pool: pg.Pool;
  /** Ends the pool; safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens a pool of `maxConnections` on `connectionString` (no connection is made until first use).
 * With `statementTimeoutMs` (> 0) every connection asks PostgreSQL to cancel a statement running
 * longer (SQLSTATE 57014, answered as `timeout`: isStatementTimeout).
 */
export function openDatabase(
  connectionString: string,
  options: { logger: Logger; maxConnections: number; statementTimeoutMs?: number },
): ServiceDatabase {
  const pool = new pg.Pool({
    connectionString,
    max: options.maxConnections,
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
  });
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

/**
 * Checks a connection out of `pool` for `work`, then gives it back. While a connection is checked out
 * the pool no longer listens to it: one lost between two queries (a server restart,
 * pg_terminate_backend, a network cut while the caller waits on something else) would emit an
 * 'error' nobody hears and end the process. Here that error is kept (the next query fails anyway)
 * and the connection is released as broken, so the pool discards it instead of lending it again.
 */
export async function withConnection<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost ??= error;
  };
  client.on('error', onError);
  try {
    return await work(client);
  } finally {
    client.off('error', onError);
    client.release(lost);
  }
}

/**
 * Runs `work` in a transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it
 * throws (the error is rethrown as is).
 */
export function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withConnection(pool, async (client) => {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

/**
 * A function that turns SQL into a named statement (`<prefix>_<n>`): each pooled connection parses
 * and plans it once and then only binds and executes it, which takes a measurable share of the
 * database's time off hot paths. Only for SQL built from a bounded set of shapes, so the number of
 * names stays small.
 */
export function namedStatements(prefix: string): (text: string, values: unknown[]) => pg.QueryConfig {
  const names = new Map<string, string>();
  return (text, values) => {
    let name = names.get(text);
    if (name === undefined) {
      name = `${prefix}_${names.size + 1}`;
      names.set(text, name);
    }
    return { name, text, values };
  };
}

/**
 * Reads a large result set in id order, `batchSize` rows at a time, by keyset pagination:
 * `readAfter(lastId, batchSize)` is one short query (`... AND id > $n ORDER BY id LIMIT $m`), so
 * nothing (no cursor, connection or snapshot) is held between batches, memory stays bounded by one
 * batch, and every batch costs the same however far the walk has gone.
 */
export async function* keysetBatches<Row extends { id: number }>(
  readAfter: (afterId: number, batchSize: number) => Promise<Row[]>,
  batchSize: number,
): AsyncGenerator<Row[]> {
  let afterId = 0;
  for (;;) {
    const rows = await readAfter(afterId, batchSize);
    if (rows.length > 0) yield rows;
    if (rows.length < batchSize) return;
    afterId = rows[rows.length - 1]!.id;
  }
}

/**
 * A user's rows for the data export by keysetBatches: `nextBatch` reads the rows of user $1 with an
 * id above $2, in id order, at most $3.
 */
export function userKeysetBatches<Row extends { id: number }>(
  pool: pg.Pool,
  nextBatch: string,
  userId: number,
  batchSize: number,
): AsyncGenerator<Row[]> {
  return keysetBatches(
    async (afterId, limit) => (await pool.query<Row>(nextBatch, [userId, afterId, limit])).rows,
    batchSize,
  );
}

/**
 * True when the database could not serve the statement at all: it refused or lost the connection,
 * ran out of resources (`too many clients`), or is shutting down (SQLSTATE classes 08, 53, 57P), or
 * the pool could not connect in time. A handler failing so answers 503, not 500: the request was
 * fine and may be retried. Narrower than isTransientDatabaseError (no deadlocks, and an error
 * without a code, such as a TypeError, stays a bug).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    return (
      code.startsWith('08') || code.startsWith('53') || code.startsWith('57P') || code === 'ECONNREFUSED'
    );
  }
  return (
    error instanceof Error &&
    /^(timeout exceeded when trying to connect|Connection terminated unexpectedly)/.test(error.message)
  );
}

/**
 * True when PostgreSQL cancelled the statement (SQLSTATE 57014): it ran past the connection's
 * statement_timeout (openDatabase). The service answers `timeout` (504) for it: the request was
 * valid but too expensive for now, and the service itself is fine.
 */
export function isStatementTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '57014';
}

/**
 * True for failures that say nothing about the statement itself (the database is unreachable,
 * restarting, overloaded, or broke a deadlock): the same work may succeed when retried.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return true; // connection errors (ECONNREFUSED, ...) and pool timeouts
  return (
    code.startsWith('08') || // connection exception
    code.startsWith('53') || // insufficient resources
    code.startsWith('57P') || // operator intervention (shutdown, restart)
    code === '40001' || // serialization failure
    code === '40P01' || // deadlock
    code === '55P03' || // lock not available
    /^E[A-Z]+$/.test(code) // a Node socket error code
  );
}
