/**
 * The webhook service's database handle: one `pg` Pool. Like the ticket service, it talks to
 * PostgreSQL only through hand-written, parameterised SQL in its store modules (*-store.ts); Prisma
 * defines the schema and migrations but is not used at run time. The hot path (fan-out, claim,
 * record an attempt) is one statement each, with FOR UPDATE SKIP LOCKED and data-modifying CTEs
 * that Prisma's client cannot express.
 */
import pg from 'pg';
import type { Logger } from '@tix/kit';

export interface WebhooksDatabase {
  pool: pg.Pool;
  /** Ends the pool; safe to call twice. */
  close(): Promise<void>;
}

/** Opens a pool on `connectionString` (no connection is made until first use). */
export function openDatabase(
  connectionString: string,
  options: { logger: Logger; maxConnections?: number },
): WebhooksDatabase {
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
 * and executes it. The service's SQL is a fixed set of shapes, so the number of names stays small.
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `webhooks_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
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
