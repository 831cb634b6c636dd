-- Hand-written (see 20261121024300_search_and_lanes): the ticket list's cursor mode reads a page as
-- an index range scan after the last ticket it listed, so every sort needs an index ordered by its
-- key and then the id (ties are broken by id). created_at and updated_at have theirs already
-- (tickets_list_created_idx, tickets_list_updated_idx); these are the others. Live tickets only,
-- as the list is.

-- sort=id.
CREATE INDEX "tickets_list_id_idx" ON "tickets" ("project_id", "id") WHERE "deleted_at" IS NULL;
-- sort=title: the list orders titles case-insensitively, by lower(title).
CREATE INDEX "tickets_list_title_idx" ON "tickets" ("project_id", lower("title"), "id")
  WHERE "deleted_at" IS NULL;
-- sort=priority (the enum is declared in severity order).
CREATE INDEX "tickets_list_priority_idx" ON "tickets" ("project_id", "priority", "id")
  WHERE "deleted_at" IS NULL;

-- sort=status reads the lanes one after the other in workflow order, each by id; sort=assigned_to the
-- assigned tickets by (assignee, id), then the unassigned ones by id. The id extends the two
-- existing indexes, which stay as narrow for the lane counts and the assignee filter as an int more.
DROP INDEX "tickets_status_idx";
CREATE INDEX "tickets_status_idx" ON "tickets" ("project_id", "status", "id") WHERE "deleted_at" IS NULL;
DROP INDEX "tickets_assignee_idx";
CREATE INDEX "tickets_assignee_idx" ON "tickets" ("project_id", "assigned_to", "id")
  WHERE "deleted_at" IS NULL;
