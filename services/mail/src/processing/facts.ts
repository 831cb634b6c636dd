/**
 * The facts decideThread needs (docs/mail.md, "Threading rules"), looked up for one message:
 * Message-IDs in ticket_messages (scoped to the mailbox's project), tickets from the ticket service
 * (by id, or by number for a subject tag), the requester's and CCs' addresses from the customer
 * service, and whether an address is staff (lookup's users).
 */
import type pg from 'pg';
import { AppError, type OutgoingContext, type ServiceClient } from '@tix/kit';
import type { TicketJson } from '@tix/protos';
import type { ThreadFacts, TicketFacts } from '@tix/threading';
import type { Directory } from './directory.js';

export type TicketsPeer = Pick<ServiceClient<'tickets'>, 'GetTicket' | 'CreateTicket' | 'UpdateTicket'>;
export type CustomersPeer = Pick<ServiceClient<'customers'>, 'BatchGetCustomers' | 'FindOrCreateCustomers'>;

export interface FactsInput {
  pool: pg.Pool;
  tickets: TicketsPeer;
  customers: CustomersPeer;
  directory: Directory;
  context: OutgoingContext;
  projectId: number;
  mailboxAddresses: string[];
  tokenSecret: string;
  settings: { reopenWindowDays: number; acceptListMail: boolean };
}

const isNotFound = (error: unknown) => error instanceof AppError && error.kind === 'not_found';

/** The ticket's API JSON, or null when it does not exist (or is deleted) in the project. */
export async function readTicket(
  tickets: TicketsPeer,
  context: OutgoingContext,
  projectId: number,
  address: { id: number } | { number: number },
): Promise<TicketJson | null> {
  try {
    const answer = await tickets.GetTicket(
      'id' in address
        ? { project_id: projectId, id: address.id }
        : { project_id: projectId, id: 0, project_ref_id: address.number },
      context,
    );
    return JSON.parse(answer.json.toString('utf8')) as TicketJson;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** The addresses of these customers (every address of each), by customer id. */
export async function customerEmails(
  customers: CustomersPeer,
  context: OutgoingContext,
  ids: number[],
): Promise<Map<number, string[]>> {
  if (ids.length === 0) return new Map();
  const { customers: found } = await customers.BatchGetCustomers({ ids: [...new Set(ids)] }, context);
  return new Map(found.map((customer) => [customer.id, customer.emails.map((email) => email.toLowerCase())]));
}

/** The ThreadFacts of one message; `seen` collects every ticket read, for the actions after. */
export function threadFacts(input: FactsInput, seen: Map<number, TicketJson>): ThreadFacts {
  const { pool, projectId } = input;
  return {
    now: new Date(),
    tokenSecret: input.tokenSecret,
    mailboxAddresses: input.mailboxAddresses,
    settings: input.settings,
    async ticketsByMessageId(ids) {
      const { rows } = await pool.query<{ message_id: string; ticket_id: number }>(
        'SELECT message_id, ticket_id FROM ticket_messages WHERE project_id = $1 AND message_id = ANY($2::text[])',
        [projectId, ids],
      );
      return new Map(rows.map((row) => [row.message_id, row.ticket_id]));
    },
    async isOwnMessageId(id) {
      const { rowCount } = await pool.query(
        "SELECT 1 FROM ticket_messages WHERE message_id = $1 AND direction = 'out'",
        [id],
      );
      return (rowCount ?? 0) > 0;
    },
    async ticketByNumber(prefix, number) {
      const project = await input.directory.project(projectId);
      if (prefix.toUpperCase() !== project.prefix.toUpperCase()) return null;
      const ticket = await readTicket(input.tickets, input.context, projectId, { number });
      if (ticket) seen.set(ticket.id, ticket);
      return ticket?.id ?? null;
    },
    async ticket(id): Promise<TicketFacts | null> {
      const ticket = seen.get(id) ?? (await readTicket(input.tickets, input.context, projectId, { id }));
      if (!ticket) return null;
      seen.set(id, ticket);
      const project = await input.directory.project(projectId);
      const closed = project.statuses.some((status) => status.slug === ticket.status && status.is_closed);
      const requesterId = ticket.requester_id ?? null;
      const cc = ticket.cc ?? [];
      const emails = await customerEmails(input.customers, input.context, [
        ...(requesterId === null ? [] : [requesterId]),
        ...cc,
      ]);
      return {
        id: ticket.id,
        status: ticket.status,
        closed,
        // The reopen window counts from the closing (closed_at); a ticket still without one (closed
        // before the field existed, or by a status made closed later) from its last change.
        closedAt: closed ? new Date(ticket.closed_at ?? ticket.updated_at) : null,
        mergedInto: ticket.merged_into_id ?? null,
        requesterEmails: requesterId === null ? [] : (emails.get(requesterId) ?? []),
        ccEmails: cc.flatMap((customerId) => emails.get(customerId) ?? []),
      };
    },
    isStaff: (email) => input.directory.isStaff(email),
  };
}
