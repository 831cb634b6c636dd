-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "attachments" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "ticket_id" INTEGER NOT NULL,
    "object_key" VARCHAR(200) NOT NULL,
    "original_filename" VARCHAR(255) NOT NULL,
    "mime_type" VARCHAR(255) NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "sha256" CHAR(64) NOT NULL,
    "created_by" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),
    "deleted_by" INTEGER,
    "object_removed_at" TIMESTAMPTZ(3),

    CONSTRAINT "attachments_pkey" PRIMARY KEY ("id")
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
CREATE UNIQUE INDEX "attachments_object_key_key" ON "attachments"("object_key");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_events_id_key" ON "outbox_events"("id");

-- CreateIndex
CREATE INDEX "outbox_events_published_at_seq_idx" ON "outbox_events"("published_at", "seq");

-- Wake the outbox relay on every insert
CREATE OR REPLACE FUNCTION outbox_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox_events', '');
  RETURN NULL;
END $$;
CREATE TRIGGER outbox_events_notify AFTER INSERT ON "outbox_events"
  FOR EACH STATEMENT EXECUTE FUNCTION outbox_events_notify();

-- Hand-written (Prisma cannot express partial indexes or CHECK constraints; see schema.prisma).
-- The list: live attachments of one ticket, in upload order.
CREATE INDEX "attachments_live_ticket_idx" ON "attachments"("project_id", "ticket_id", "id")
  WHERE "deleted_at" IS NULL;
-- The sweeper's queue: deleted rows whose object may still be in the store.
CREATE INDEX "attachments_pending_removal_idx" ON "attachments"("id")
  WHERE "deleted_at" IS NOT NULL AND "object_removed_at" IS NULL;
ALTER TABLE "attachments"
  ADD CONSTRAINT "attachments_size_bytes_check" CHECK ("size_bytes" > 0),
  ADD CONSTRAINT "attachments_sha256_check" CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
  ADD CONSTRAINT "attachments_original_filename_check" CHECK (length("original_filename") > 0),
  ADD CONSTRAINT "attachments_object_removed_check" CHECK ("object_removed_at" IS NULL OR "deleted_at" IS NOT NULL);
