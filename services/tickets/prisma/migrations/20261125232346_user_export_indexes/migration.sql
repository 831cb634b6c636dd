-- CreateIndex
CREATE INDEX "tickets_created_by_id_idx" ON "tickets"("created_by", "id");

-- CreateIndex
CREATE INDEX "tickets_assigned_to_id_idx" ON "tickets"("assigned_to", "id");
