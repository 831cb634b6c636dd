-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "activities" (
    "id" BIGSERIAL NOT NULL,
    "fold_key" TEXT NOT NULL,
    "event_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "project_id" INTEGER,
    "actor_kind" TEXT NOT NULL,
    "actor_user_id" INTEGER,
    "actor_api_key_id" INTEGER,
    "via_type" TEXT,
    "via_id" BIGINT,
    "ticket_id" INTEGER,
    "changes" JSONB NOT NULL DEFAULT '{}',
    "changed_fields" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "comment_id" INTEGER,
    "comment_internal" BOOLEAN,
    "comment_excerpt" TEXT,
    "filename" TEXT,

    CONSTRAINT "activities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "events" (
    "sequence" BIGSERIAL NOT NULL,
    "event_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "project_id" INTEGER,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "body" TEXT NOT NULL,

    CONSTRAINT "events_pkey" PRIMARY KEY ("sequence")
);

-- CreateTable
CREATE TABLE "ticket_subjects" (
    "id" INTEGER NOT NULL,
    "project_id" INTEGER NOT NULL,
    "ticket_number" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "version" INTEGER NOT NULL,

    CONSTRAINT "ticket_subjects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "retention_floors" (
    "log" TEXT NOT NULL,
    "floor" BIGINT NOT NULL,

    CONSTRAINT "retention_floors_pkey" PRIMARY KEY ("log")
);

-- CreateIndex
CREATE UNIQUE INDEX "activities_fold_key_key" ON "activities"("fold_key");

-- CreateIndex
CREATE INDEX "activities_project_id_id_idx" ON "activities"("project_id", "id");

-- CreateIndex
CREATE INDEX "activities_ticket_id_id_idx" ON "activities"("ticket_id", "id");

-- CreateIndex
CREATE INDEX "activities_actor_user_id_id_idx" ON "activities"("actor_user_id", "id");

-- CreateIndex
CREATE INDEX "activities_occurred_at_idx" ON "activities"("occurred_at");

-- CreateIndex
CREATE INDEX "activities_recorded_at_idx" ON "activities"("recorded_at");

-- CreateIndex
CREATE UNIQUE INDEX "events_event_id_key" ON "events"("event_id");

-- CreateIndex
CREATE INDEX "events_project_id_sequence_idx" ON "events"("project_id", "sequence");

-- CreateIndex
CREATE INDEX "events_recorded_at_idx" ON "events"("recorded_at");
