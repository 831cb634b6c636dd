/**
 * The mail a public reply produced (sent, delivered, bounced): its place under each public comment by
 * staff. The gateway has no operation for a comment's delivery log yet (docs/decisions.md, "Console:
 * customers and mail"), so this renders nothing; once it exists, this component loads it for
 * `comment` and lists each recipient's state.
 */
import type { Comment } from './model';

export function CommentMail(_props: { comment: Comment }) {
  return null;
}
