-- AlterTable
ALTER TABLE "ai_documents" ADD COLUMN     "predicted_at" TIMESTAMPTZ(3);

-- Hand-written: tickets already in the corpus had their predictions recorded when they arrived.
UPDATE "ai_documents" SET "predicted_at" = now();
-- The prediction worker's queue: open tickets still to predict, newest first.
CREATE INDEX "ai_documents_unpredicted_idx" ON "ai_documents" ("ticket_id")
  WHERE "predicted_at" IS NULL AND NOT "deleted" AND NOT "is_closed";
