-- Hand-written: what schema.prisma cannot express. `pnpm db:migration` diffs schema.prisma only, so
-- nothing here is ever dropped by a generated migration.

-- At most one system user: the assistant's (GetAssistantUser reads it by the flag).
CREATE UNIQUE INDEX "users_one_system_user" ON "users" ("is_system") WHERE "is_system";

-- The assistant's own user (design note §4.1): every change the ai service makes is made as it. An
-- agent, active, with no password (it never signs in) and the reserved .invalid domain (no mail can
-- reach it). Idempotent on the email, like every seed.
INSERT INTO "users" ("name", "email", "role", "is_active", "password_hash", "is_system", "updated_at")
VALUES ('Tix AI', 'ai@tix.invalid', 'agent', true, NULL, true, CURRENT_TIMESTAMP)
ON CONFLICT ("email") DO NOTHING;
