/**
 * The prose of the ticket operations and the board (routes/v1/tickets.ts, board.ts) in the API
 * description, by operationId.
 */

/** How a write names the requester and the cc (routes/v1/ticket-people.ts). */
const PEOPLE =
  'The requester (additive) is `requester_id` (a customer id) or `requester` (`{ email, name? }`: the customer ' +
  'holding that address, or a new one), not both (422). `cc` takes customer ids, `cc_emails` addresses (found or ' +
  'created as customers); the cc is both together, without duplicates or the requester. An unknown or deleted ' +
  'customer id is 422 under its field; a merged one stands for the customer it was merged into.';

export const TICKET_DESCRIPTIONS = {
  listTickets:
    'Paginated list with filters. With `q`, every match is returned (streamed) and `pagination` is absent; `q` ' +
    'also finds a ticket by its number (`SUP-42`). `deleted=only` lists deleted tickets (to restore one) and ' +
    'needs `tickets:delete`. An unknown query parameter is 400 naming it. Cursor mode (additive): send `cursor` ' +
    "(empty for the first page), then each answer's `next_cursor`, keeping the sort and filters; deep pages cost " +
    'what the first does and tickets added meanwhile never repeat or push others out. `Link` names the next, ' +
    'previous, first and last pages in both modes. `customer_id` keeps the tickets a customer requested or is ' +
    'copied on, `requester_id` those they requested (additive).',
  createTicket:
    'Body `project_id` counts only when the key is not project-scoped and no `project_id` query parameter is given. ' +
    PEOPLE,
  bulkUpdateTickets:
    'Per-ticket success or failure is reported; `status` is one of the four default statuses.',
  updateTicket:
    'Only the given fields change. With `version`, a ticket modified since answers 409 ' +
    '(`Ticket was modified by another user`): re-fetch, re-apply, retry. With If-Match, a ticket at another ' +
    'version answers 412, checked first. ' +
    PEOPLE +
    ' On update, `requester_id: null` clears the requester, and `cc` and `cc_emails` (either or both) replace the cc.',
  moveTicket:
    'Optionally placed after or before a ticket of the target lane; `resolution_type` only when moving to a closed status.',
  mergeTicket: 'Closes this ticket as a duplicate of `target_id`; it then carries `merged_into`.',
  getBoard: "Lane keys are the project's statuses in workflow order; iterate them, do not hard-code them.",
};
