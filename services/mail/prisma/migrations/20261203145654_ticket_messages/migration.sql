-- CreateTable
CREATE TABLE "ticket_messages" (
    "message_id" TEXT NOT NULL,
    "ticket_id" INTEGER NOT NULL,
    "project_id" INTEGER NOT NULL,
    "direction" TEXT NOT NULL,
    "comment_id" INTEGER,
    "inbound_message_id" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ticket_messages_pkey" PRIMARY KEY ("message_id")
);

-- CreateIndex
CREATE INDEX "ticket_messages_ticket_id_created_at_idx" ON "ticket_messages"("ticket_id", "created_at");
