/**
 * The prose of the activity feed, ticket histories and the event stream (routes/v1/activity.ts) in
 * the API description, by operationId.
 */

export const ACTIVITY_DESCRIPTIONS = {
  listActivity:
    'Every change, newest first, one entry per write. Without a project: every project. Pass the first ' +
    "page's `snapshot_id` as `until_id` on later pages, so entries arriving meanwhile do not shift them; " +
    '`cursor` continues from this page with GET /activity/new.',
  pollActivity:
    'The entries after `cursor`, oldest first, with the same filters as GET /activity. No entry is ever ' +
    'skipped: entries are numbered in commit order. Send the previous ETag in If-None-Match: 304 when ' +
    'nothing is new. 410 when the cursor is older than the retention: reload GET /activity.',
  getTicketHistory:
    "The ticket's activity entries, oldest first: who changed what, when. The path `id` is the ticket id.",
  listEvents:
    "The project's domain events after `after`, in commit order: each is exactly the body webhooks deliver, " +
    "plus its `id` (the deliveries' `webhook-id`) and `sequence`. A receiver that missed deliveries resumes " +
    'from its last cursor and loses nothing. comment.* events only for keys with `comments:read`. Send the ' +
    'previous ETag in If-None-Match: 304 when nothing is new. 410 when the cursor is older than the retention.',
};
