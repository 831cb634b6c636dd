/**
 * Retrying a whole use case when its write lost a benign race (WriteConflict: another write changed
 * the ticket first, two writers picked the same lane position, PostgreSQL aborted one side of a
 * deadlock). Each attempt re-reads the ticket, so a retry never overwrites what the other writer
 * did. A write only loses to a write that committed, so with N writers on one ticket at once each
 * succeeds within N attempts; WRITE_ATTEMPTS bounds the rest (then 409).
 */
import { AppError } from '@tix/kit';
import { WriteConflict } from '../db.js';
import { TICKET_MODIFIED } from '../tickets/ticket-errors.js';

/** Attempts per use case before the caller is told to retry (409). */
export const WRITE_ATTEMPTS = 10;

/** Runs `attempt` until it does not end in a WriteConflict; 409 after WRITE_ATTEMPTS conflicts. */
export async function retryOnWriteConflict<T>(attempt: () => Promise<T>): Promise<T> {
  for (let count = 1; ; count++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
      if (count >= WRITE_ATTEMPTS) throw AppError.conflict(TICKET_MODIFIED);
    }
  }
}
