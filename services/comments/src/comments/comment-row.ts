/** A comment as the service holds it, and as the comment.v1 message it answers with. */
import type { comment } from '@tix/protos';

/** One row of `comments`. */
export interface CommentRow {
  id: number;
  /** The project of the ticket; a comment is only reachable inside it. */
  projectId: number;
  ticketId: number;
  /** The author. */
  userId: number;
  content: string;
  /** Sanitized HTML, or null when there is none. */
  contentHtml: string | null;
  isInternal: boolean;
  /** staff, or customer when a system principal wrote it for customerId (always public). */
  authorType: 'staff' | 'customer';
  customerId: number | null;
  /** Where it came from (`mail:<inbound id>`), unique per project; null for comments written in Tix. */
  sourceRef: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a caller may change on a comment (the rest is fixed at creation). */
export type CommentFields = Pick<CommentRow, 'content' | 'contentHtml' | 'isInternal'>;

/** The Comment message of a row: timestamps as ISO 8601 UTC, a null content_html as an absent optional. */
export function toCommentMessage(row: CommentRow): comment.Comment__Output {
  return {
    id: row.id,
    ticket_id: row.ticketId,
    user_id: row.userId,
    content: row.content,
    ...(row.contentHtml === null ? {} : { content_html: row.contentHtml }),
    is_internal: row.isInternal,
    author_type: row.authorType,
    ...(row.customerId === null ? {} : { customer_id: row.customerId }),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
