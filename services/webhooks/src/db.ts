/**
 * What the webhook stores add to the kit's database helpers: named statements for the hot path
 * (fan-out, claim, record an attempt: one statement each, with FOR UPDATE SKIP LOCKED and
 * data-modifying CTEs) and which failures are worth retrying.
 */
import { namedStatements } from '@tix/kit';

/** `text` as a named statement, parsed and planned once per connection (a fixed set of shapes). */
export const prepared = namedStatements('webhooks');

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
