-- AlterTable
ALTER TABLE "comments" ADD COLUMN     "author_type" VARCHAR(16) NOT NULL DEFAULT 'staff',
ADD COLUMN     "customer_id" INTEGER,
ADD COLUMN     "source_ref" VARCHAR(200);

-- CreateIndex
CREATE UNIQUE INDEX "comments_project_id_source_ref_key" ON "comments"("project_id", "source_ref");
