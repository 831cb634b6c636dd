-- AlterTable
ALTER TABLE "activities" ADD COLUMN     "details" JSONB;
