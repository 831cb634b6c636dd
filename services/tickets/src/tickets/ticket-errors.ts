/** The refusals every ticket use case shares (spec messages, exact). */
import { AppError } from '@tix/kit';

export const TICKET_NOT_FOUND = 'Ticket not found';
export const TICKET_MODIFIED = 'Ticket was modified by another user';
export const TICKET_NOT_DELETED = 'Ticket is not deleted';

/** 404 `Ticket not found` (unknown, deleted, or of another project). */
export function ticketNotFound(): AppError {
  return AppError.notFound(TICKET_NOT_FOUND);
}

/** 409 `Ticket was modified by another user` (stale version, or a simultaneous write won). */
export function ticketModified(): AppError {
  return AppError.conflict(TICKET_MODIFIED);
}
