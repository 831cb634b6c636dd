/** gRPC handlers of the SlaService: calendars and policies (definitions.ts), and each ticket's clocks (clocks.ts). */
import type pg from 'pg';
import { type AsyncHandlers, fieldError } from '@tix/kit';
import type { sla } from '@tix/protos';
import { ticketSla } from './clocks.js';
import {
  createCalendar,
  createPolicy,
  deleteCalendar,
  deletePolicy,
  getCalendar,
  getPolicy,
  listCalendars,
  listPolicies,
  updateCalendar,
  updatePolicy,
} from './definitions.js';

/** GetTicketSla answers at most this many tickets at once (a page of tickets). */
export const MAX_TICKET_SLA_IDS = 1_000;

export function slaHandlers(deps: {
  pool: pg.Pool;
  now?: () => Date;
}): AsyncHandlers<sla.SlaServiceHandlers> {
  const { pool } = deps;
  const now = deps.now ?? (() => new Date());
  return {
    ListCalendars: (request) => listCalendars(pool, request.project_id),
    GetCalendar: (request) => getCalendar(pool, request.project_id, request.id),
    CreateCalendar: (request) => createCalendar(pool, request),
    UpdateCalendar: (request) => updateCalendar(pool, request),
    async DeleteCalendar(request) {
      await deleteCalendar(pool, request.project_id, request.id);
      return { message: 'Calendar deleted' };
    },
    ListPolicies: (request) => listPolicies(pool, request.project_id),
    GetPolicy: (request) => getPolicy(pool, request.project_id, request.id),
    CreatePolicy: (request) => createPolicy(pool, request),
    UpdatePolicy: (request) => updatePolicy(pool, request),
    async DeletePolicy(request) {
      await deletePolicy(pool, request.project_id, request.id);
      return { message: 'Policy deleted' };
    },
    async GetTicketSla(request) {
      const ids = [...new Set(request.ticket_ids)];
      if (ids.length > MAX_TICKET_SLA_IDS)
        throw fieldError('ticket_ids', `at most ${MAX_TICKET_SLA_IDS} ticket ids`);
      const tickets = await ticketSla(pool, ids, now());
      return {
        tickets: tickets.map((ticket) => ({
          ticket_id: ticket.ticket_id,
          project_id: ticket.project_id,
          sla_json: JSON.stringify(ticket.sla),
        })),
      };
    },
  };
}
