-- AlterTable
ALTER TABLE "tickets" ADD COLUMN     "cc" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
ADD COLUMN     "requester_id" INTEGER;

-- Hand-written (see schema.prisma's header): the requester and cc (docs/decisions.md, "Requesters and
-- cc on tickets"). Prisma creates scalar lists nullable; a ticket always has a (possibly empty) cc.
ALTER TABLE "tickets" ALTER COLUMN "cc" SET NOT NULL;
ALTER TABLE "tickets"
  DROP CONSTRAINT "tickets_source_type_check",
  ADD CONSTRAINT "tickets_source_type_check" CHECK ("source_type" IN ('api', 'web', 'system', 'email')),
  ADD CONSTRAINT "tickets_requester_id_check" CHECK ("requester_id" >= 1),
  ADD CONSTRAINT "tickets_cc_check" CHECK (
    cardinality("cc") <= 50 AND array_position("cc", NULL) IS NULL AND 0 < ALL ("cc")
    AND NOT ("requester_id" = ANY ("cc")));

-- The customer filters (requester_id; customer_id = requester or cc) and a customer's tickets: live
-- tickets only, as the list's other indexes.
CREATE INDEX "tickets_requester_idx" ON "tickets" ("project_id", "requester_id", "id")
  WHERE "deleted_at" IS NULL AND "requester_id" IS NOT NULL;
CREATE INDEX "tickets_cc_idx" ON "tickets" USING GIN ("cc") WHERE "deleted_at" IS NULL;
