/** Creating a comment: on a live ticket of the project, written by the caller, HTML sanitized. */
import { actorOf, AppError, FieldErrors, requirePrincipal, type Caller } from '@tix/kit';
import { CUSTOMER_AUTHOR_DENIED, SOURCE_REF_DENIED } from './comment-errors.js';
import type { CommentDeps } from './comment-deps.js';
import { commentCreated } from './comment-events.js';
import type { CommentRow } from './comment-row.js';
import { checkNewComment } from './comment-rules.js';
import { requireLiveTicket } from './ticket-check.js';

export interface CreateCommentInput {
  projectId: number;
  ticketId: number;
  content: string;
  /** Absent or null: no HTML. */
  contentHtml?: string | null;
  /** Absent: internal (spec default). */
  isInternal?: boolean;
  /** Writes it as this customer (author_type customer, always public); system principals only. */
  customerId?: number;
  /** `mail:<inbound id>`: a repeat answers the first comment; system principals only. */
  sourceRef?: string;
}

/** Longest source_ref (the column's size). */
const SOURCE_REF_MAX = 200;

/** 403 when a non-system caller names a customer or a source; 422 on a malformed one. */
function checkOrigin(input: CreateCommentInput, kind: string): void {
  if (input.customerId !== undefined && kind !== 'system')
    throw AppError.permissionDenied(CUSTOMER_AUTHOR_DENIED);
  if (input.sourceRef !== undefined && kind !== 'system') throw AppError.permissionDenied(SOURCE_REF_DENIED);
  const errors = new FieldErrors();
  if (input.customerId !== undefined && (!Number.isInteger(input.customerId) || input.customerId < 1))
    errors.add('customer_id', 'customer_id must be a positive integer');
  if (
    input.sourceRef !== undefined &&
    (input.sourceRef.trim() === '' || input.sourceRef.length > SOURCE_REF_MAX)
  )
    errors.add('source_ref', `source_ref must be 1 to ${SOURCE_REF_MAX} characters`);
  errors.throwIfAny();
}

/**
 * The new comment, with comment.created in the outbox. 401 without a principal, 404 `Ticket not
 * found` unless the ticket is live in the project, then 422 naming every invalid field.
 * A customer's comment (customer_id, system principals only, else 403) is always public; a
 * source_ref already used in the project answers that comment and writes nothing.
 */
export async function createComment(
  deps: CommentDeps,
  input: CreateCommentInput,
  caller: Caller,
): Promise<CommentRow> {
  const author = requirePrincipal(caller.principal);
  checkOrigin(input, author.kind);
  await requireLiveTicket(deps.tickets, input, caller);
  const customerId = input.customerId ?? null;
  const fields = checkNewComment(customerId === null ? input : { ...input, isInternal: false });
  return deps.store.insert(
    {
      projectId: input.projectId,
      ticketId: input.ticketId,
      userId: author.user_id,
      ...fields,
      authorType: customerId === null ? 'staff' : 'customer',
      customerId,
      sourceRef: input.sourceRef ?? null,
    },
    (created) => [commentCreated(created, actorOf(author))],
  );
}
