-- Hand-written (see 20261121024300_search_and_lanes): live tickets per lane, kept exact by triggers
-- in the same transaction as every write, so the board's counts and an unfiltered list's total are
-- read from a handful of rows instead of counting up to 100,000 index entries per request.
CREATE TABLE "lane_counts" (
  "project_id" INTEGER NOT NULL,
  "status" TEXT NOT NULL,
  "live" INTEGER NOT NULL DEFAULT 0,
  -- No CHECK (live >= 0): PostgreSQL checks an upsert's proposed row (here a delta, possibly
  -- negative) before resolving the conflict. The triggers below are the only writers.
  CONSTRAINT "lane_counts_pkey" PRIMARY KEY ("project_id", "status")
);

-- One statement-level trigger per operation: a bulk write changes each count once, and counts are
-- updated in key order, so two writers touching the same lanes always lock them in the same order.
CREATE FUNCTION "lane_counts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "lane_counts" AS c ("project_id", "status", "live")
      SELECT "project_id", "status", count(*) FROM "new_rows" WHERE "deleted_at" IS NULL
       GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT ("project_id", "status") DO UPDATE SET "live" = c."live" + EXCLUDED."live";
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE "lane_counts" c SET "live" = c."live" - d."n"
      FROM (SELECT "project_id", "status", count(*) AS "n" FROM "old_rows" WHERE "deleted_at" IS NULL
             GROUP BY 1, 2) d
     WHERE c."project_id" = d."project_id" AND c."status" = d."status";
  ELSE
    INSERT INTO "lane_counts" AS c ("project_id", "status", "live")
      SELECT "project_id", "status", sum("delta") FROM (
        SELECT "project_id", "status", 1 AS "delta" FROM "new_rows" WHERE "deleted_at" IS NULL
        UNION ALL
        SELECT "project_id", "status", -1 FROM "old_rows" WHERE "deleted_at" IS NULL
      ) d
       GROUP BY 1, 2 HAVING sum("delta") <> 0 ORDER BY 1, 2
      ON CONFLICT ("project_id", "status") DO UPDATE SET "live" = c."live" + EXCLUDED."live";
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "tickets_lane_counts_insert" AFTER INSERT ON "tickets"
  REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "lane_counts_apply"();
CREATE TRIGGER "tickets_lane_counts_update" AFTER UPDATE ON "tickets"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "lane_counts_apply"();
CREATE TRIGGER "tickets_lane_counts_delete" AFTER DELETE ON "tickets"
  REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "lane_counts_apply"();

INSERT INTO "lane_counts" ("project_id", "status", "live")
  SELECT "project_id", "status", count(*) FROM "tickets" WHERE "deleted_at" IS NULL GROUP BY 1, 2;
