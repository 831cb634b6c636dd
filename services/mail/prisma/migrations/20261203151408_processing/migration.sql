-- AlterTable
ALTER TABLE "inbound_messages" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "claimed_at" TIMESTAMPTZ(3),
ADD COLUMN     "progress" JSONB;
