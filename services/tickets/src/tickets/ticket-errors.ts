/** The refusals every ticket use case shares (spec messages, exact). */
import { ERROR_MESSAGES } from '@tix/protos';
import { AppError } from '@tix/kit';

export const TICKET_NOT_FOUND = ERROR_MESSAGES.ticketNotFound;
export const TICKET_MODIFIED = ERROR_MESSAGES.ticketModified;
export const TICKET_NOT_DELETED = 'Ticket is not deleted';
export const TICKET_CHANGED_SINCE_ETAG = 'Ticket has changed since the ETag in If-Match';

/** 404 `Ticket not found` (unknown, deleted, or of another project). */
export function ticketNotFound(): AppError {
  return AppError.notFound(TICKET_NOT_FOUND);
}

/**
 * 412 when the caller's If-Match (HTTP, passed as `expected_version`) names another version than the
 * ticket's, read in the write's own attempt: a write that races it re-reads and checks again.
 */
export function checkExpectedVersion(expected: number | undefined, ticket: { version: number }): void {
  if (expected !== undefined && expected !== ticket.version)
    throw new AppError('precondition_failed', TICKET_CHANGED_SINCE_ETAG);
}

/** 409 `Ticket was modified by another user` (stale version, or a simultaneous write won). */
export function ticketModified(): AppError {
  return AppError.conflict(TICKET_MODIFIED);
}
