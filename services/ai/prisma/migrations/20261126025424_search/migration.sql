-- Hand-written: what schema.prisma cannot express (see its header). `pnpm db:migration` diffs
-- schema.prisma only, so nothing here is ever dropped by a generated migration.

-- Trigram similarity of titles and replies (contrib, available on managed PostgreSQL too).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- What retrieval and search match: the title weighs most, then the description, then the reply that
-- resolved the ticket. English stemming for now (a per-project language is a later choice).
ALTER TABLE "ai_documents" ADD COLUMN "tsv" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', "title"), 'A') ||
  setweight(to_tsvector('english', "description"), 'B') ||
  setweight(to_tsvector('english', coalesce("resolution_reply", '')), 'C')
) STORED;
CREATE INDEX "ai_documents_tsv_idx" ON "ai_documents" USING GIN ("tsv");
CREATE INDEX "ai_documents_title_trgm_idx" ON "ai_documents" USING GIN ("title" gin_trgm_ops);
-- The resolved corpus of a project, which suggestions draw from.
CREATE INDEX "ai_documents_resolved_idx" ON "ai_documents" ("project_id")
  WHERE "is_closed" AND "resolution_reply" IS NOT NULL AND NOT "deleted";

ALTER TABLE "ai_comments" ADD COLUMN "tsv" tsvector GENERATED ALWAYS AS (
  to_tsvector('english', "content")
) STORED;
CREATE INDEX "ai_comments_tsv_idx" ON "ai_comments" USING GIN ("tsv");

-- Scalar lists are created nullable; a document always has a (possibly empty) tag list.
ALTER TABLE "ai_documents" ALTER COLUMN "tags" SET NOT NULL;
-- Ticket numbers are matched case-insensitively (sup-42 finds SUP-42).
CREATE INDEX "ai_documents_number_upper_idx" ON "ai_documents" (upper("ticket_number"));
