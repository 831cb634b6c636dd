-- AlterTable
ALTER TABLE "tickets" ADD COLUMN     "source_ref" VARCHAR(200);

-- CreateIndex
CREATE UNIQUE INDEX "tickets_project_id_source_ref_key" ON "tickets"("project_id", "source_ref");
