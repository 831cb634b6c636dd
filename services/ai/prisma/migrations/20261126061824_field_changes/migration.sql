-- AlterTable
ALTER TABLE "ai_documents" ADD COLUMN     "field_changes" JSONB NOT NULL DEFAULT '{}';
