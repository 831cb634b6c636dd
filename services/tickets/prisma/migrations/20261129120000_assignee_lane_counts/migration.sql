-- Hand-written (see 20261121024300_search_and_lanes): the board filtered by assignee ("my tickets")
-- counts that assignee's live tickets per status, which lane_counts cannot answer. With the status in
-- the assignee index the count is an index-only scan instead of a heap visit per ticket: at 200,000
-- tickets in a project, 20,000 of one assignee's, 13 ms -> 4 ms. The key (and so the assignee
-- filter and sort=assigned_to's cursor pages) is unchanged.
DROP INDEX "tickets_assignee_idx";
CREATE INDEX "tickets_assignee_idx" ON "tickets" ("project_id", "assigned_to", "id") INCLUDE ("status")
  WHERE "deleted_at" IS NULL;
