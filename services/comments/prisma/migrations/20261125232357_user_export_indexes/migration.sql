-- CreateIndex
CREATE INDEX "comments_user_id_id_idx" ON "comments"("user_id", "id");
