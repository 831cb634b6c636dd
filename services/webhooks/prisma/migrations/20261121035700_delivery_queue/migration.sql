-- Hand-written (Prisma cannot express these; see the header of schema.prisma).

-- The work queue: delivery workers claim the due pending deliveries of each subscription in
-- next_attempt_at order with FOR UPDATE SKIP LOCKED, a few per subscription at a time (fairness).
-- Finished deliveries (almost all rows) stay out of this index.
CREATE INDEX "deliveries_due_idx" ON "deliveries" ("webhook_id", "next_attempt_at") WHERE "status" = 'pending';

-- Fan-out reads the live subscriptions of one project for every event.
CREATE INDEX "webhooks_live_project_idx" ON "webhooks" ("project_id") WHERE "deleted_at" IS NULL;

ALTER TABLE "webhooks"
  ADD CONSTRAINT "webhooks_events_check" CHECK ("events" IS NOT NULL AND cardinality("events") > 0),
  ADD CONSTRAINT "webhooks_url_check" CHECK ("url" ~ '^https?://');

ALTER TABLE "deliveries"
  ADD CONSTRAINT "deliveries_attempt_count_check" CHECK ("attempt_count" >= 0),
  ADD CONSTRAINT "deliveries_attempts_check" CHECK (jsonb_typeof("attempts") = 'array');

-- Wake the delivery workers of every replica when deliveries are queued (fan-out, redelivery).
-- Statement level: one notification per fan-out, however many subscriptions matched.
CREATE FUNCTION "deliveries_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM "new_rows") THEN
    PERFORM pg_notify('webhook_deliveries', '');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "deliveries_notify" AFTER INSERT ON "deliveries"
  REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "deliveries_notify"();
