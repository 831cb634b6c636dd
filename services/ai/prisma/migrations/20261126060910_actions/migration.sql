-- AlterTable
ALTER TABLE "ai_documents" ADD COLUMN     "priority_defaulted" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "ai_actions" (
    "id" BIGSERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "ticket_id" INTEGER NOT NULL,
    "ticket_number" TEXT NOT NULL,
    "prediction_id" BIGINT,
    "action_type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "confidence" DOUBLE PRECISION NOT NULL,
    "threshold" DOUBLE PRECISION NOT NULL,
    "before" JSONB NOT NULL,
    "after" JSONB NOT NULL,
    "expected" JSONB NOT NULL,
    "set" JSONB NOT NULL,
    "rationale" TEXT NOT NULL,
    "sources" JSONB NOT NULL,
    "position_token" TEXT,
    "ticket_version_before" INTEGER NOT NULL,
    "ticket_version_after" INTEGER,
    "guardrails_version" INTEGER NOT NULL,
    "needs_review" BOOLEAN NOT NULL,
    "conflict" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "executed_at" TIMESTAMPTZ(3),
    "reviewed_by" INTEGER,
    "reviewed_at" TIMESTAMPTZ(3),
    "review_note" TEXT,
    "reverted_by" INTEGER,
    "reverted_at" TIMESTAMPTZ(3),
    "revert_reason" TEXT,

    CONSTRAINT "ai_actions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ai_actions_project_id_created_at_idx" ON "ai_actions"("project_id", "created_at");

-- CreateIndex
CREATE INDEX "ai_actions_ticket_id_idx" ON "ai_actions"("ticket_id");

-- CreateIndex
CREATE INDEX "ai_actions_project_id_status_created_at_idx" ON "ai_actions"("project_id", "status", "created_at");
