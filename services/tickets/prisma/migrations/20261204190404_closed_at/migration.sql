-- AlterTable
ALTER TABLE "tickets" ADD COLUMN     "closed_at" TIMESTAMPTZ(3);

-- Backfill (docs/decisions.md, "Mail bodies, linked tickets and closed_at (issue 28)"): this database
-- does not hold the workflows (lookup does), but only a ticket in a closed status carries a
-- resolution_type, so those are known closed and their last change is the best closing time known.
-- A closed ticket without one gets closed_at from its updated_at on its next write.
UPDATE "tickets" SET "closed_at" = "updated_at" WHERE "resolution_type" IS NOT NULL;
