-- CreateTable
CREATE TABLE "mailboxes" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "imap_host" TEXT,
    "imap_port" INTEGER,
    "imap_tls" BOOLEAN NOT NULL DEFAULT true,
    "imap_user" TEXT,
    "secret" TEXT,
    "auth" TEXT NOT NULL DEFAULT 'password',
    "default_ticket_type_id" INTEGER,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "last_uid" BIGINT NOT NULL DEFAULT 0,
    "uidvalidity" BIGINT,
    "status" TEXT NOT NULL DEFAULT 'idle',
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mailboxes_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "mailboxes_kind_check" CHECK ("kind" IN ('smtp', 'imap')),
    CONSTRAINT "mailboxes_auth_check" CHECK ("auth" IN ('password', 'xoauth2'))
);

-- CreateTable
CREATE TABLE "inbound_messages" (
    "id" BIGSERIAL NOT NULL,
    "mailbox_id" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "uid" BIGINT,
    "uidvalidity" BIGINT,
    "message_id" TEXT,
    "object_key" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "state" TEXT NOT NULL DEFAULT 'received',
    "outcome" JSONB,

    CONSTRAINT "inbound_messages_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "inbound_messages_source_check" CHECK ("source" IN ('smtp', 'imap')),
    CONSTRAINT "inbound_messages_state_check" CHECK ("state" IN ('received', 'processing', 'processed', 'refused', 'failed'))
);

-- CreateIndex
CREATE UNIQUE INDEX "mailboxes_address_key" ON "mailboxes"("address");
CREATE INDEX "mailboxes_project_id_idx" ON "mailboxes"("project_id");
CREATE UNIQUE INDEX "inbound_messages_mailbox_id_uidvalidity_uid_key" ON "inbound_messages"("mailbox_id", "uidvalidity", "uid");
CREATE UNIQUE INDEX "inbound_messages_mailbox_id_message_id_key" ON "inbound_messages"("mailbox_id", "message_id");
CREATE INDEX "inbound_messages_mailbox_id_id_idx" ON "inbound_messages"("mailbox_id", "id");

-- AddForeignKey
ALTER TABLE "inbound_messages" ADD CONSTRAINT "inbound_messages_mailbox_id_fkey" FOREIGN KEY ("mailbox_id") REFERENCES "mailboxes"("id") ON DELETE CASCADE ON UPDATE CASCADE;
