-- Hand-written: what schema.prisma cannot express. `pnpm db:migration` diffs schema.prisma only, so
-- nothing here is ever dropped by a generated migration.

-- A ticket's received mail (ListInboundMessages by ticket_id: the sender checks agents see on the
-- ticket): the processed messages by the ticket their outcome landed on. On the text, never cast, so
-- no outcome can make a write fail.
CREATE INDEX "inbound_messages_outcome_ticket_idx" ON "inbound_messages" (("outcome"->>'ticket_id'), "id")
  WHERE "state" = 'processed';
