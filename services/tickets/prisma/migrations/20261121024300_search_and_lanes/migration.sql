-- Hand-written: what schema.prisma cannot express (see its header). `pnpm db:migration` diffs
-- schema.prisma only, so nothing here is ever dropped by a generated migration; keep it in mind when
-- changing these columns.

-- Lane order: fractional-indexing keys are ASCII digits and letters that must compare byte-wise,
-- whatever the database's default collation is.
ALTER TABLE "tickets" ALTER COLUMN "lane_rank" TYPE TEXT COLLATE "C";
-- Prisma creates scalar lists nullable; a ticket always has a (possibly empty) tag list.
ALTER TABLE "tickets" ALTER COLUMN "tags" SET NOT NULL;

-- Invariants the service keeps, checked by the database as a last line of defence.
ALTER TABLE "tickets"
  ADD CONSTRAINT "tickets_version_check" CHECK ("version" >= 1),
  ADD CONSTRAINT "tickets_project_ref_id_check" CHECK ("project_ref_id" >= 1),
  ADD CONSTRAINT "tickets_title_check" CHECK (char_length(btrim("title")) >= 1),
  ADD CONSTRAINT "tickets_tags_check" CHECK (cardinality("tags") <= 20),
  ADD CONSTRAINT "tickets_custom_fields_check" CHECK (jsonb_typeof("custom_fields") = 'object'),
  ADD CONSTRAINT "tickets_lane_rank_check" CHECK ("lane_rank" <> ''),
  ADD CONSTRAINT "tickets_source_type_check" CHECK ("source_type" IN ('api', 'web', 'system')),
  ADD CONSTRAINT "tickets_not_merged_into_itself_check" CHECK ("merged_into_id" <> "id");
ALTER TABLE "project_counters"
  ADD CONSTRAINT "project_counters_last_ref_id_check" CHECK ("last_ref_id" >= 1);

-- Lane order and the board: one position per live ticket of a lane. Unique, so two writers that
-- pick the same key collide (and retry) instead of leaving a tie; (lane_rank) alone orders a lane.
CREATE UNIQUE INDEX "tickets_lane_rank_key" ON "tickets" ("project_id", "status", "lane_rank")
  WHERE "deleted_at" IS NULL;

-- The list: default sort (-created_at), sort by updated_at, assignee filter. Soft-deleted tickets
-- are never listed, so they stay out of the indexes.
CREATE INDEX "tickets_list_created_idx" ON "tickets" ("project_id", "created_at" DESC, "id" DESC)
  WHERE "deleted_at" IS NULL;
CREATE INDEX "tickets_list_updated_idx" ON "tickets" ("project_id", "updated_at" DESC, "id" DESC)
  WHERE "deleted_at" IS NULL;
CREATE INDEX "tickets_assignee_idx" ON "tickets" ("project_id", "assigned_to")
  WHERE "deleted_at" IS NULL;
-- Exact counts per lane (board counts, list totals): a narrow index a count scans on its own
-- (index-only), several times cheaper than the heap or the wider lane index at 100,000 tickets.
CREATE INDEX "tickets_status_idx" ON "tickets" ("project_id", "status") WHERE "deleted_at" IS NULL;
CREATE INDEX "tickets_tags_idx" ON "tickets" USING GIN ("tags") WHERE "deleted_at" IS NULL;

-- `q`: case-insensitive substring search (ILIKE '%...%') on title or description.
CREATE EXTENSION IF NOT EXISTS "pg_trgm";
CREATE INDEX "tickets_title_trgm_idx" ON "tickets" USING GIN ("title" gin_trgm_ops)
  WHERE "deleted_at" IS NULL;
CREATE INDEX "tickets_description_trgm_idx" ON "tickets" USING GIN ("description" gin_trgm_ops)
  WHERE "deleted_at" IS NULL;
