/**
 * The prose of the comment operations (routes/v1/comments.ts) in the API description, by
 * operationId.
 */

export const COMMENT_DESCRIPTIONS = {
  listComments: 'Oldest first; at most the oldest 1000. The path `id` is the ticket id.',
  createComment: 'Internal (team-only) by default. The path `id` is the ticket id.',
  updateComment:
    'Only the author or team leads and above; a public comment cannot become internal. Only given fields change.',
  deleteComment: 'Only the author or admins.',
};
