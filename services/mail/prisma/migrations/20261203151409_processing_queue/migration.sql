-- Hand-written: what schema.prisma cannot express. `pnpm db:migration` diffs schema.prisma only, so
-- nothing here is ever dropped by a generated migration.

-- The processor's queue: rows still to process (received) or being processed, oldest first.
CREATE INDEX "inbound_messages_pending_idx" ON "inbound_messages" ("id")
  WHERE "state" IN ('received', 'processing');

-- A new message wakes the processor at once (LISTEN tix_mail_inbound); it polls as well, so a lost
-- notification only delays a message by one poll.
CREATE FUNCTION "tix_mail_inbound_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tix_mail_inbound', NEW."id"::text);
  RETURN NULL;
END;
$$;

CREATE TRIGGER "inbound_messages_notify" AFTER INSERT ON "inbound_messages"
  FOR EACH ROW EXECUTE FUNCTION "tix_mail_inbound_notify"();

-- `ignored` is a final state too (automatic mail, loops, own mail): recorded, no ticket.
ALTER TABLE "inbound_messages" DROP CONSTRAINT "inbound_messages_state_check";
ALTER TABLE "inbound_messages" ADD CONSTRAINT "inbound_messages_state_check"
  CHECK ("state" IN ('received', 'processing', 'processed', 'ignored', 'refused', 'failed'));
