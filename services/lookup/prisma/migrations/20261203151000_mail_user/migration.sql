-- Hand-written: what schema.prisma cannot express (see 20261126055802_assistant_user_row).

-- A second system user: the mail service's. System users are told apart by their address, so the
-- "at most one system user" index goes; GetAssistantUser reads the assistant by its address.
DROP INDEX IF EXISTS "users_one_system_user";

-- The mail service's own user (docs/decisions.md, "Inbound mail: the processor"): every ticket and
-- comment made from mail is made as it, for the customer who wrote. An agent, active, with no
-- password (it never signs in) and the reserved .invalid domain. Idempotent on the email.
INSERT INTO "users" ("name", "email", "role", "is_active", "password_hash", "is_system", "updated_at")
VALUES ('Tix Mail', 'mail@tix.invalid', 'agent', true, NULL, true, CURRENT_TIMESTAMP)
ON CONFLICT ("email") DO NOTHING;
