/**
 * Tickets as the ticket service answers them: the API's JSON (ApiTicket), read here, in one place,
 * wherever the assistant needs a ticket's fields.
 */
import { AppError } from '@tix/kit';
import type { ticket, TicketJson } from '@tix/protos';

/** The ticket of an answer, as the API shows it; a missing one is the ticket service's fault. */
export function ticketOf(answer: ticket.ApiTicket__Output | null | undefined): TicketJson {
  if (!answer) throw AppError.internal('the ticket service answered without the ticket');
  return JSON.parse(answer.json.toString('utf8')) as TicketJson;
}
