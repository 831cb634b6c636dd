-- AlterTable
ALTER TABLE "mailboxes" ADD COLUMN     "oauth_client" TEXT,
ADD COLUMN     "oauth_token" TEXT,
ADD COLUMN     "oauth_token_expires_at" TIMESTAMPTZ(3);
