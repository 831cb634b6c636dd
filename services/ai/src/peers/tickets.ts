/**
 * What the assistant reads of the ticket service: the ticket a suggestion answers, its availability
 * or its predictions are asked about, as the caller sees it now (the corpus, kept from events, may
 * not have seen its latest change yet). The one place the ai service reads a ticket, so a change to
 * GetTicket's answer is made here (docs/assistant.md).
 */
import { AppError, type Caller, type ServiceClient } from '@tix/kit';
import type { ticket, TicketJson } from '@tix/protos';

/**
 * The ticket of a ticket-service answer (the API's JSON, ApiTicket), as the API shows it; a missing
 * one is the ticket service's fault.
 */
export function ticketOf(answer: ticket.ApiTicket__Output | null | undefined): TicketJson {
  if (!answer) throw AppError.internal('the ticket service answered without the ticket');
  return JSON.parse(answer.json.toString('utf8')) as TicketJson;
}

/** What the assistant needs of the ticket service to read a ticket. */
export type TicketReader = Pick<ServiceClient<'tickets'>, 'GetTicket'>;

/**
 * What a suggestion is asked about: the ticket's own words; and its priority, against which a
 * prediction is held back (actions/plan-action.ts, heldBack).
 */
export interface TicketSubject {
  title: string;
  description: string;
  priority: string;
}

/**
 * The ticket's title, description and priority, read as the caller (its principal and correlation
 * id). The ticket service's refusals pass through as they are: NOT_FOUND `Ticket not found` for a
 * ticket that is unknown, deleted or of another project, and its outage as the caller would have
 * seen it.
 */
export async function readTicketSubject(
  tickets: TicketReader,
  address: { projectId: number; ticketId: number },
  caller: Caller,
): Promise<TicketSubject> {
  const found = ticketOf(
    await tickets.GetTicket(
      { project_id: address.projectId, id: address.ticketId },
      { correlationId: caller.correlationId, principal: caller.principal },
    ),
  );
  return { title: found.title, description: found.description ?? '', priority: found.priority };
}
