-- CreateTable
CREATE TABLE "ticket_idempotency" (
    "scope" CHAR(64) NOT NULL,
    "fingerprint" CHAR(64) NOT NULL,
    "ticket_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ticket_idempotency_pkey" PRIMARY KEY ("scope")
);

-- CreateIndex
CREATE INDEX "ticket_idempotency_created_at_idx" ON "ticket_idempotency"("created_at");

-- CreateIndex
CREATE INDEX "ticket_idempotency_ticket_id_idx" ON "ticket_idempotency"("ticket_id");

-- AddForeignKey
ALTER TABLE "ticket_idempotency" ADD CONSTRAINT "ticket_idempotency_ticket_id_fkey" FOREIGN KEY ("ticket_id") REFERENCES "tickets"("id") ON DELETE CASCADE ON UPDATE CASCADE;
