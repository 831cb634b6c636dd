-- Hand-written (see schema.prisma's header): a customer merge re-points the requester and cc of
-- every ticket naming the merged customer, in any project, live or soft-deleted
-- (src/customer-events/customer-tickets-store.ts; docs/decisions.md, "A merged customer's tickets
-- follow the merge (issue 28)"). The list's indexes are per project and live only.
CREATE INDEX "tickets_requester_any_idx" ON "tickets" ("requester_id", "id")
  WHERE "requester_id" IS NOT NULL;
CREATE INDEX "tickets_cc_any_idx" ON "tickets" USING GIN ("cc") WHERE cardinality("cc") > 0;
