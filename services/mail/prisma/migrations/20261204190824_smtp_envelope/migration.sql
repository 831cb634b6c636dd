-- AlterTable
ALTER TABLE "inbound_messages" ADD COLUMN     "smtp_client_ip" TEXT,
ADD COLUMN     "smtp_helo" TEXT,
ADD COLUMN     "smtp_mail_from" TEXT;
