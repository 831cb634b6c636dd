-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "organizations" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "notes" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" INTEGER,
    "updated_by" INTEGER,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "organization_domains" (
    "domain" TEXT NOT NULL,
    "organization_id" INTEGER NOT NULL,

    CONSTRAINT "organization_domains_pkey" PRIMARY KEY ("domain")
);

-- CreateTable
CREATE TABLE "customers" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "notes" TEXT NOT NULL DEFAULT '',
    "organization_id" INTEGER,
    "merged_into" INTEGER,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" INTEGER,
    "updated_by" INTEGER,

    CONSTRAINT "customers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_emails" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "customer_id" INTEGER NOT NULL,
    "primary" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" INTEGER,

    CONSTRAINT "customer_emails_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "organization_domains_organization_id_idx" ON "organization_domains"("organization_id");

-- CreateIndex
CREATE INDEX "customers_organization_id_id_idx" ON "customers"("organization_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "customer_emails_email_key" ON "customer_emails"("email");

-- CreateIndex
CREATE INDEX "customer_emails_customer_id_id_idx" ON "customer_emails"("customer_id", "id");

-- AddForeignKey
ALTER TABLE "organization_domains" ADD CONSTRAINT "organization_domains_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_merged_into_fkey" FOREIGN KEY ("merged_into") REFERENCES "customers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_emails" ADD CONSTRAINT "customer_emails_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (see schema.prisma's header): addresses and domains are stored lower-cased, one
-- primary address per customer, organization names unique case-insensitively, a tombstone never
-- points at itself, and the list of live customers (newest first) has its index.
ALTER TABLE "customer_emails"
  ADD CONSTRAINT "customer_emails_email_check" CHECK ("email" = lower("email") AND length("email") <= 320);
ALTER TABLE "organization_domains"
  ADD CONSTRAINT "organization_domains_domain_check" CHECK ("domain" = lower("domain") AND length("domain") <= 253);
ALTER TABLE "customers"
  ADD CONSTRAINT "customers_merged_into_check" CHECK ("merged_into" IS NULL OR "merged_into" <> "id");
CREATE UNIQUE INDEX "customer_emails_one_primary_key" ON "customer_emails" ("customer_id") WHERE "primary";
CREATE UNIQUE INDEX "organizations_name_key" ON "organizations" (lower("name"));
CREATE INDEX "customers_live_idx" ON "customers" ("id" DESC) WHERE NOT "deleted" AND "merged_into" IS NULL;
