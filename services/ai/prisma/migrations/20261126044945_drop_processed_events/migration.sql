-- DropTable
DROP TABLE "ai_processed_events";
