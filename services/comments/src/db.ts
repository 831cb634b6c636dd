/**
 * The comment service's database handle: one `pg` Pool. The service talks to PostgreSQL only through
 * hand-written, parameterised SQL in comments/comment-store.ts, as the ticket service does: a comment
 * and its outbox event are written by one statement (create) or one short transaction holding the
 * row lock (update, delete), which is plain SQL. Prisma defines the schema and migrations only.
 */
import pg from 'pg';
import type { Logger } from '@tix/kit';

export interface CommentsDatabase {
  pool: pg.Pool;
  /** Ends the pool; safe to call twice. */
  close(): Promise<void>;
}

/** Opens a pool on `connectionString` (no connection is made until first use). */
export function openDatabase(
  connectionString: string,
  options: { logger: Logger; maxConnections?: number },
): CommentsDatabase {
  const pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 10 });
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
 * Runs `work` in a transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it
 * throws (the error is rethrown as is).
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
    throw error;
  } finally {
    client.release();
  }
}
