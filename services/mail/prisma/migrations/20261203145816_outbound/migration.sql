-- CreateTable
CREATE TABLE "project_mail_settings" (
    "project_id" INTEGER NOT NULL,
    "from_name" TEXT NOT NULL DEFAULT '',
    "from_address" TEXT NOT NULL DEFAULT '',
    "signature" TEXT NOT NULL DEFAULT '',
    "acknowledge" BOOLEAN NOT NULL DEFAULT false,
    "ack_subject" TEXT NOT NULL DEFAULT '',
    "ack_body" TEXT NOT NULL DEFAULT '',
    "reopen_window_days" INTEGER NOT NULL DEFAULT 14,
    "accept_list_mail" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "project_mail_settings_pkey" PRIMARY KEY ("project_id")
);

-- CreateTable
CREATE TABLE "outbound_messages" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "project_id" INTEGER NOT NULL,
    "ticket_id" INTEGER,
    "comment_id" INTEGER,
    "inbound_message_id" BIGINT,
    "message_id" TEXT NOT NULL,
    "from_address" TEXT NOT NULL,
    "to_addresses" TEXT[],
    "cc_addresses" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "subject" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "html" TEXT,
    "in_reply_to" TEXT,
    "references" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "automatic" BOOLEAN NOT NULL DEFAULT false,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" JSONB NOT NULL DEFAULT '[]',
    "last_error" TEXT,
    "sent_at" TIMESTAMPTZ(3),
    "bounced_at" TIMESTAMPTZ(3),
    "bounce_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbound_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "auto_reply_log" (
    "id" BIGSERIAL NOT NULL,
    "address" TEXT NOT NULL,
    "sent_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "auto_reply_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "outbound_messages_comment_id_key" ON "outbound_messages"("comment_id");

-- CreateIndex
CREATE UNIQUE INDEX "outbound_messages_message_id_key" ON "outbound_messages"("message_id");

-- CreateIndex
CREATE INDEX "outbound_messages_state_next_attempt_at_idx" ON "outbound_messages"("state", "next_attempt_at");

-- CreateIndex
CREATE INDEX "outbound_messages_ticket_id_idx" ON "outbound_messages"("ticket_id");

-- CreateIndex
CREATE UNIQUE INDEX "outbound_messages_kind_inbound_message_id_key" ON "outbound_messages"("kind", "inbound_message_id");

-- CreateIndex
CREATE INDEX "auto_reply_log_address_sent_at_idx" ON "auto_reply_log"("address", "sent_at");
