-- Hand-written (see schema.prisma's header). Duplicate candidates of a new ticket are the open,
-- unmerged, live tickets of its project created in the days before it: an index of just those keeps
-- the check to a few pages instead of a scan of the project's history.
CREATE INDEX "ai_documents_open_recent_idx" ON "ai_documents" ("project_id", "created_at")
  WHERE NOT "is_closed" AND "merged_into_id" IS NULL AND NOT "deleted";
