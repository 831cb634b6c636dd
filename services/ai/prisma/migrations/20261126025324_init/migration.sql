-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "ai_documents" (
    "ticket_id" INTEGER NOT NULL,
    "project_id" INTEGER NOT NULL,
    "ticket_type_id" INTEGER NOT NULL,
    "ticket_number" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL,
    "is_closed" BOOLEAN NOT NULL,
    "priority" TEXT NOT NULL,
    "resolution_type" TEXT,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "assigned_to" INTEGER,
    "created_by" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "closed_at" TIMESTAMPTZ(3),
    "merged_into_id" INTEGER,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "version" INTEGER NOT NULL,
    "resolution_reply" TEXT,
    "resolution_comment_id" INTEGER,

    CONSTRAINT "ai_documents_pkey" PRIMARY KEY ("ticket_id")
);

-- CreateTable
CREATE TABLE "ai_comments" (
    "id" INTEGER NOT NULL,
    "ticket_id" INTEGER NOT NULL,
    "project_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "is_internal" BOOLEAN NOT NULL,
    "content" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "deleted" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "ai_comments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ai_lexeme_df" (
    "project_id" INTEGER NOT NULL,
    "lexeme" TEXT NOT NULL,
    "documents" INTEGER NOT NULL,

    CONSTRAINT "ai_lexeme_df_pkey" PRIMARY KEY ("project_id","lexeme")
);

-- CreateTable
CREATE TABLE "ai_suggestions" (
    "id" BIGSERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "ticket_id" INTEGER NOT NULL,
    "user_id" INTEGER,
    "provider" TEXT NOT NULL,
    "confidence" DOUBLE PRECISION NOT NULL,
    "sources" JSONB NOT NULL,
    "content" TEXT NOT NULL,
    "redactions" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ai_suggestions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ai_predictions" (
    "id" BIGSERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "ticket_id" INTEGER NOT NULL,
    "action_type" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "confidence" DOUBLE PRECISION NOT NULL,
    "rationale" TEXT NOT NULL,
    "sources" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "outcome" TEXT,
    "outcome_at" TIMESTAMPTZ(3),

    CONSTRAINT "ai_predictions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ai_processed_events" (
    "event_id" UUID NOT NULL,
    "processed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ai_processed_events_pkey" PRIMARY KEY ("event_id")
);

-- CreateIndex
CREATE INDEX "ai_documents_project_id_is_closed_idx" ON "ai_documents"("project_id", "is_closed");

-- CreateIndex
CREATE INDEX "ai_comments_ticket_id_idx" ON "ai_comments"("ticket_id");

-- CreateIndex
CREATE INDEX "ai_suggestions_ticket_id_idx" ON "ai_suggestions"("ticket_id");

-- CreateIndex
CREATE UNIQUE INDEX "ai_predictions_ticket_id_action_type_key" ON "ai_predictions"("ticket_id", "action_type");

-- CreateIndex
CREATE INDEX "ai_processed_events_processed_at_idx" ON "ai_processed_events"("processed_at");
