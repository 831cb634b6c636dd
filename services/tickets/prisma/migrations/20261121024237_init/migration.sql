-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "ticket_priority" AS ENUM ('low', 'medium', 'high', 'critical');

-- CreateEnum
CREATE TYPE "resolution_type" AS ENUM ('resolved', 'wont_fix', 'duplicate');

-- CreateTable
CREATE TABLE "tickets" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "ticket_type_id" INTEGER NOT NULL,
    "project_ref_id" INTEGER NOT NULL,
    "title" VARCHAR(200) NOT NULL,
    "description" VARCHAR(5000),
    "status" VARCHAR(64) NOT NULL,
    "priority" "ticket_priority" NOT NULL DEFAULT 'medium',
    "assigned_to" INTEGER,
    "created_by" INTEGER NOT NULL,
    "updated_by" INTEGER,
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "source_type" VARCHAR(16) NOT NULL,
    "merged_into_id" INTEGER,
    "resolution_type" "resolution_type",
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "version" INTEGER NOT NULL DEFAULT 1,
    "lane_rank" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "tickets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "project_counters" (
    "project_id" INTEGER NOT NULL,
    "last_ref_id" INTEGER NOT NULL,

    CONSTRAINT "project_counters_pkey" PRIMARY KEY ("project_id")
);

-- CreateTable
CREATE TABLE "outbox_events" (
    "seq" BIGSERIAL NOT NULL,
    "id" UUID NOT NULL,
    "event_type" VARCHAR(100) NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("seq")
);

-- CreateIndex
CREATE INDEX "tickets_merged_into_id_idx" ON "tickets"("merged_into_id");

-- CreateIndex
CREATE UNIQUE INDEX "tickets_project_id_project_ref_id_key" ON "tickets"("project_id", "project_ref_id");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_events_id_key" ON "outbox_events"("id");

-- CreateIndex
CREATE INDEX "outbox_events_published_at_seq_idx" ON "outbox_events"("published_at", "seq");

-- AddForeignKey
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_merged_into_id_fkey" FOREIGN KEY ("merged_into_id") REFERENCES "tickets"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Wake the outbox relay on every insert
CREATE OR REPLACE FUNCTION outbox_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox_events', '');
  RETURN NULL;
END $$;
CREATE TRIGGER outbox_events_notify AFTER INSERT ON "outbox_events"
  FOR EACH STATEMENT EXECUTE FUNCTION outbox_events_notify();
