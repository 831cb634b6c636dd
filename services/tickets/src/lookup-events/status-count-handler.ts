/** CountTicketsInStatus: how many of a project's tickets are in a status (lookup asks before removing it). */
import type { AsyncHandlers } from '@tix/kit';
import { SLUG_MAX_LENGTH, type ticket } from '@tix/protos';
import type { StatusTicketsStore } from './status-tickets-store.js';

/** Status slugs as lookup stores them; anything else names no status, so no ticket is in it. */
const STATUS_SLUG = new RegExp(`^[a-z][a-z0-9_]{0,${SLUG_MAX_LENGTH - 1}}$`);

/** The handler over the store: live and soft-deleted counts. */
export function statusCountHandlers(
  tickets: StatusTicketsStore,
): Pick<AsyncHandlers<ticket.TicketServiceHandlers>, 'CountTicketsInStatus'> {
  return {
    async CountTicketsInStatus(request) {
      if (
        !Number.isInteger(request.project_id) ||
        request.project_id < 1 ||
        !STATUS_SLUG.test(request.status)
      )
        return { live: 0, deleted: 0 };
      return tickets.count(request.project_id, request.status);
    },
  };
}
