-- CreateIndex
CREATE INDEX "attachments_created_by_id_idx" ON "attachments"("created_by", "id");
