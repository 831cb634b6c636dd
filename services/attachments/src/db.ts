/**
 * The attachment service's database handle: one `pg` Pool. The service talks to PostgreSQL only
 * through hand-written, parameterised SQL in attachments/attachment-store.ts; Prisma defines the
 * schema and migrations but is not used at run time. The queries are few and fixed (insert with its
 * event, a live row by id, the live rows of a ticket, a deletion with its event, the sweeper's
 * queue), each one statement inside at most a two-statement transaction, so a query builder would
 * add weight without removing any code — the same reasoning, and the same shape, as the ticket
 * service.
 */
import pg from 'pg';
import type { Logger } from '@tix/kit';

export interface AttachmentsDatabase {
  pool: pg.Pool;
  /** Ends the pool; safe to call twice. */
  close(): Promise<void>;
}

/** Opens a pool on `connectionString` (no connection is made until first use). */
export function openDatabase(
  connectionString: string,
  options: { logger: Logger; maxConnections?: number },
): AttachmentsDatabase {
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

/** Runs `work` in a transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it throws. */
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
