-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "calendars" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "definition" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "calendars_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policies" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "definition" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "policies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ticket_clocks" (
    "ticket_id" INTEGER NOT NULL,
    "project_id" INTEGER NOT NULL,
    "last_version" INTEGER NOT NULL DEFAULT 0,
    "snapshot" JSONB,
    "history" JSONB NOT NULL DEFAULT '[]',
    "initial_policies" JSONB NOT NULL DEFAULT '[]',
    "initial_calendars" JSONB NOT NULL DEFAULT '{}',
    "known_policies" JSONB NOT NULL DEFAULT '[]',
    "known_calendars" JSONB NOT NULL DEFAULT '{}',
    "announced" JSONB NOT NULL DEFAULT '[]',
    "clocks" JSONB,
    "next_breach_at" TIMESTAMPTZ(3),
    "next_warning_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ticket_clocks_pkey" PRIMARY KEY ("ticket_id")
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

-- CreateTable
CREATE TABLE "timers" (
    "key" TEXT NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "payload" JSONB NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "locked_until" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "dead_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "timers_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "calendars_project_id_created_at_idx" ON "calendars"("project_id", "created_at");

-- CreateIndex
CREATE INDEX "policies_project_id_position_idx" ON "policies"("project_id", "position");

-- CreateIndex
CREATE INDEX "ticket_clocks_project_id_idx" ON "ticket_clocks"("project_id");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_events_id_key" ON "outbox_events"("id");

-- CreateIndex
CREATE INDEX "outbox_events_published_at_seq_idx" ON "outbox_events"("published_at", "seq");

-- CreateIndex
CREATE INDEX "timers_due_at_idx" ON "timers"("due_at");

-- CreateIndex
CREATE INDEX "timers_locked_until_idx" ON "timers"("locked_until");

-- Wake the outbox relay on every insert
CREATE OR REPLACE FUNCTION outbox_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox_events', '');
  RETURN NULL;
END $$;
CREATE TRIGGER outbox_events_notify AFTER INSERT ON "outbox_events"
  FOR EACH STATEMENT EXECUTE FUNCTION outbox_events_notify();
