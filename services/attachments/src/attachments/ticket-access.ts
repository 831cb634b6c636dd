/**
 * An attachment is visible only while its ticket is live in the caller's project. The ticket
 * service owns tickets, so it is asked every time (GetTicket with the caller's principal and
 * correlation id): a deleted or merged-away-and-deleted ticket, or one of another project, hides its
 * attachments at once, with no copy of ticket state to keep in step.
 */
import { AppError, type Caller, type ServiceClient } from '@tix/kit';

export interface TicketAccess {
  /** Resolves when the ticket is live in the project; otherwise the ticket service's 404 (or outage). */
  requireLiveTicket(projectId: number, ticketId: number, caller: Caller): Promise<void>;
  /** Whether the ticket is live in the project (false for the ticket service's 404s). */
  isLiveTicket(projectId: number, ticketId: number, caller: Caller): Promise<boolean>;
}

/** TicketAccess over a ticket-service client. */
export function createTicketAccess(tickets: Pick<ServiceClient<'tickets'>, 'GetTicket'>): TicketAccess {
  const requireLiveTicket = async (projectId: number, ticketId: number, caller: Caller) => {
    await tickets.GetTicket(
      { project_id: projectId, id: ticketId },
      { correlationId: caller.correlationId, principal: caller.principal },
    );
  };
  return {
    requireLiveTicket,
    async isLiveTicket(projectId, ticketId, caller) {
      try {
        await requireLiveTicket(projectId, ticketId, caller);
        return true;
      } catch (error) {
        if (error instanceof AppError && error.kind === 'not_found') return false;
        throw error;
      }
    },
  };
}
