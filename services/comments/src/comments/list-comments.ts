/**
 * The comments of a ticket (spec "Comments"): chronological, oldest first (created_at, then id), at
 * most the oldest 1000, read and handed on in batches (1000 maximal comments are about 200 MB). With
 * includeInternal false the internal notes are left out before the limit, so the caller gets the
 * oldest 1000 comments it asked to see.
 */
import type { Caller } from '@tix/kit';
import type { CommentDeps } from './comment-deps.js';
import type { CommentRow } from './comment-row.js';
import type { CommentPosition } from './comment-store.js';
import { requireLiveTicket } from './ticket-check.js';

/** Spec limit: comments returned per ticket. */
export const COMMENT_LIST_LIMIT = 1000;

export interface ListCommentsInput {
  projectId: number;
  ticketId: number;
  includeInternal: boolean;
}

/** Comments read per round trip. */
const LIST_BATCH_SIZE = 100;

/**
 * The ticket's comments in batches; 404 `Ticket not found` (before any batch) unless the ticket is
 * live in the project.
 */
export async function listComments(
  deps: CommentDeps,
  input: ListCommentsInput,
  caller: Caller,
): Promise<AsyncIterable<CommentRow[]>> {
  await requireLiveTicket(deps.tickets, input, caller);
  return readBatches(deps, input);
}

async function* readBatches(deps: CommentDeps, input: ListCommentsInput): AsyncGenerator<CommentRow[]> {
  let remaining = COMMENT_LIST_LIMIT;
  let after: CommentPosition | undefined;
  while (remaining > 0) {
    const limit = Math.min(LIST_BATCH_SIZE, remaining);
    const rows = await deps.store.listForTicket(input.projectId, input.ticketId, {
      includeInternal: input.includeInternal,
      limit,
      ...(after ? { after } : {}),
    });
    if (rows.length > 0) yield rows;
    if (rows.length < limit) return;
    remaining -= rows.length;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}
