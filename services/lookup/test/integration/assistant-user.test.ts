import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Principal } from '@tix/protos';
import { LOOKUP_MIGRATIONS_DIR } from '../../src/testing.js';
import { hashPassword } from '../../src/users/password-hash.js';
import { fields, refusalOf, startLookupFixture, type LookupFixture } from './support.js';

const UNCHANGEABLE = "Tix AI is the assistant's system user and cannot be changed";
const INVALID_CREDENTIALS = { kind: 'unauthenticated', message: 'Invalid email or password' };

const admin = (userId: number): Principal => ({
  kind: 'session',
  user_id: userId,
  role: 'admin',
  scopes: [],
});

/** The statement of lookup's migrations that inserts the assistant's user. */
function assistantInsertSql(): string {
  for (const dir of readdirSync(LOOKUP_MIGRATIONS_DIR).sort()) {
    if (!/^\d{14}_/.test(dir)) continue;
    const sql = readFileSync(`${LOOKUP_MIGRATIONS_DIR}/${dir}/migration.sql`, 'utf8');
    const insert = sql
      .split(';')
      .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
      .find((statement) => statement.startsWith('INSERT INTO "users"'));
    if (insert) return insert;
  }
  throw new Error('no migration inserts the assistant user');
}

describe("lookup: the assistant's system user (Tix AI)", () => {
  let lookup: LookupFixture;
  let assistantId: number;
  let ann: { id: number };

  const assistant = () => ({
    id: assistantId,
    name: 'Tix AI',
    email: 'ai@tix.invalid',
    role: 'agent',
    is_active: true,
    is_system: true,
  });

  /** The assistant's row as stored, and how many user.updated events exist. */
  async function stored() {
    const row = await lookup.sql.query(
      'SELECT name, email, role, is_active, password_hash, is_system FROM users WHERE id = $1',
      [assistantId],
    );
    const events = await lookup.sql.query(
      "SELECT count(*)::int AS n FROM outbox_events WHERE event_type = 'user.updated'",
    );
    return { row: row.rows[0] as Record<string, unknown>, userUpdatedEvents: events.rows[0]!.n as number };
  }

  before(async () => {
    lookup = await startLookupFixture();
    ann = await lookup.client.CreateUser({
      name: 'Ann',
      email: 'ann@example.com',
      role: 'admin',
      password: 'ann password',
    });
  });
  after(() => lookup.stop());

  it('the migrations make the assistant and the mail user: active agents with no password; running the insert again changes nothing', async () => {
    const query =
      'SELECT id, name, email, role, is_active, password_hash, is_system FROM users WHERE is_system ORDER BY id';
    const { rows } = await lookup.sql.query(query);
    expect(rows).to.have.length(2);
    assistantId = rows[0].id as number;
    const system = { role: 'agent', is_active: true, password_hash: null, is_system: true };
    expect(rows).to.deep.equal([
      { id: assistantId, name: 'Tix AI', email: 'ai@tix.invalid', ...system },
      { id: rows[1].id, name: 'Tix Mail', email: 'mail@tix.invalid', ...system },
    ]);
    await lookup.sql.query(assistantInsertSql());
    expect((await lookup.sql.query(query)).rows).to.deep.equal(rows);
    // The mail user is no assistant: GetAssistantUser still answers Tix AI.
    expect((await lookup.client.GetAssistantUser({})).id).to.equal(assistantId);
  });

  it('the mail user never signs in, cannot be edited and holds no keys, like the assistant', async () => {
    const mail = (await lookup.client.ListUsers({})).users.find((u) => u.email === 'mail@tix.invalid')!;
    expect(mail.is_system).to.equal(true);
    expect(
      await refusalOf(lookup.client.AuthenticatePassword({ email: 'mail@tix.invalid', password: '' })),
    ).to.deep.include({ kind: 'unauthenticated' });
    const edit = await refusalOf(
      lookup.client.UpdateUser({ id: mail.id, role: 'admin' }, { principal: admin(ann.id) }),
    );
    expect(edit.kind).to.equal('validation_failed');
  });

  it('GetAssistantUser answers it to any caller (none, an agent, an admin)', async () => {
    const agent: Principal = { kind: 'api_key', user_id: ann.id, role: 'agent', scopes: [] };
    for (const context of [{}, { principal: agent }, { principal: admin(ann.id) }]) {
      expect(fields(await lookup.client.GetAssistantUser({}, context))).to.deep.equal(assistant());
    }
  });

  it('GetAssistantUser is NOT_FOUND only when the migration did not run (no system user)', async () => {
    await lookup.sql.query('UPDATE users SET is_system = false WHERE id = $1', [assistantId]);
    try {
      expect(await refusalOf(lookup.client.GetAssistantUser({}))).to.deep.equal({
        kind: 'not_found',
        message: "The assistant's system user does not exist (lookup's migrations did not run)",
      });
    } finally {
      await lookup.sql.query('UPDATE users SET is_system = true WHERE id = $1', [assistantId]);
    }
  });

  it('is listed (active or all) with is_system true, and GetUsers resolves its name', async () => {
    for (const active_only of [false, true]) {
      const { users } = await lookup.client.ListUsers({ active_only });
      const mail = users.find((user) => user.email === 'mail@tix.invalid');
      expect(users.map(fields)).to.deep.equal([
        assistant(),
        {
          id: mail?.id,
          name: 'Tix Mail',
          email: 'mail@tix.invalid',
          role: 'agent',
          is_active: true,
          is_system: true,
        },
        {
          id: ann.id,
          name: 'Ann',
          email: 'ann@example.com',
          role: 'admin',
          is_active: true,
          is_system: false,
        },
      ]);
    }
    const { users } = await lookup.client.GetUsers({ ids: [assistantId, ann.id] });
    expect(users.map((user) => [user.name, user.is_system])).to.deep.equal([
      ['Tix AI', true],
      ['Ann', false],
    ]);
  });

  it('never signs in: refused exactly as an unknown address, even with a password on its row', async () => {
    expect(
      await refusalOf(lookup.client.AuthenticatePassword({ email: 'ai@tix.invalid', password: '' })),
    ).to.deep.equal(INVALID_CREDENTIALS);
    const planted = await hashPassword('planted password');
    await lookup.sql.query('UPDATE users SET password_hash = $2 WHERE id = $1', [assistantId, planted]);
    try {
      for (const email of ['ai@tix.invalid', 'nobody@tix.invalid']) {
        expect(
          await refusalOf(lookup.client.AuthenticatePassword({ email, password: 'planted password' })),
          email,
        ).to.deep.equal(INVALID_CREDENTIALS);
      }
      // Nor can a principal claiming to be it change its password.
      expect(
        await refusalOf(
          lookup.client.ChangePassword(
            { current_password: 'planted password', new_password: 'a new password' },
            { principal: { kind: 'session', user_id: assistantId, role: 'agent', scopes: [] } },
          ),
        ),
      ).to.include({ kind: 'unauthenticated' });
    } finally {
      await lookup.sql.query('UPDATE users SET password_hash = NULL WHERE id = $1', [assistantId]);
    }
  });

  it('a reset by email answers exactly as for an unknown address and issues nothing; by id it is refused', async () => {
    const forAssistant = await lookup.client.IssuePasswordReset({ email: 'AI@tix.invalid' });
    const forNobody = await lookup.client.IssuePasswordReset({ email: 'nobody@tix.invalid' });
    expect(forAssistant).to.deep.equal(forNobody);
    expect(forAssistant.issued).to.equal(false);
    expect(
      await refusalOf(
        lookup.client.IssuePasswordReset({ user_id: assistantId }, { principal: admin(ann.id) }),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { user_id: ["Tix AI is the assistant's system user: it never signs in"] },
    });
    const { rows } = await lookup.sql.query('SELECT id FROM password_resets WHERE user_id = $1', [
      assistantId,
    ]);
    expect(rows).to.deep.equal([]);
  });

  it('a reset token that reached its row anyway sets no password', async () => {
    const token = 'A'.repeat(43);
    await lookup.sql.query(
      `INSERT INTO password_resets (token_hash, user_id, expires_at) VALUES ($1, $2, now() + interval '10 minutes')`,
      [createHash('sha256').update(token).digest('hex'), assistantId],
    );
    expect(
      await refusalOf(lookup.client.ResetPassword({ token, new_password: 'a new password' })),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { token: ['Reset link is invalid or has expired'] },
    });
    expect((await stored()).row.password_hash).to.equal(null);
  });

  it('cannot be edited by an admin or the CLI (422 on each field given, even an unchanged value); nothing is written', async () => {
    const before = await stored();
    for (const context of [{}, { principal: admin(ann.id) }]) {
      expect(
        await refusalOf(
          lookup.client.UpdateUser(
            {
              id: assistantId,
              name: 'Helpful Bot',
              role: 'admin',
              is_active: false,
              password: 'long enough',
            },
            context,
          ),
        ),
      ).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: {
          name: [UNCHANGEABLE],
          role: [UNCHANGEABLE],
          is_active: [UNCHANGEABLE],
          password: [UNCHANGEABLE],
        },
      });
      for (const change of [{ is_active: false }, { role: 'viewer' }, { name: 'Tix AI' }]) {
        expect(
          await refusalOf(lookup.client.UpdateUser({ id: assistantId, ...change }, context)),
          JSON.stringify(change),
        ).to.deep.equal({
          kind: 'validation_failed',
          message: 'Validation failed',
          validation_errors: { [Object.keys(change)[0]!]: [UNCHANGEABLE] },
        });
      }
    }
    expect(await stored()).to.deep.equal(before);
  });

  it('holds no API key: creation is refused by email and by id (422 on user)', async () => {
    for (const user of [{ user_email: 'ai@tix.invalid' }, { user_id: assistantId }]) {
      expect(
        await refusalOf(lookup.client.CreateApiKey({ ...user, scopes: ['tickets:read'], name: 'AI key' })),
        JSON.stringify(user),
      ).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: { user: ["Tix AI is the assistant's system user and cannot have API keys"] },
      });
    }
    const { rows } = await lookup.sql.query('SELECT id FROM api_keys WHERE user_id = $1', [assistantId]);
    expect(rows).to.deep.equal([]);
  });

  it('its address cannot be taken by a new user', async () => {
    expect(
      await refusalOf(lookup.client.CreateUser({ name: 'Impostor', email: 'AI@tix.invalid', role: 'admin' })),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { email: ['A user with email "ai@tix.invalid" already exists'] },
    });
  });

  it('does not count as anyone: the only admin is still the last active admin, and the demo seeds its own four users', async () => {
    expect(await refusalOf(lookup.client.UpdateUser({ id: ann.id, is_active: false }))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { is_active: ['The last active admin cannot be deactivated or demoted'] },
    });
    const seeded = await lookup.client.SeedDemo({});
    expect(seeded.users.map((user) => [user.email, user.is_system])).to.deep.equal([
      ['admin@example.com', false],
      ['lead@example.com', false],
      ['agent@example.com', false],
      ['viewer@example.com', false],
    ]);
    expect(seeded.created_passwords.map((created) => created.email)).to.not.include('ai@tix.invalid');
    const { rows } = await lookup.sql.query('SELECT count(*)::int AS n FROM users WHERE is_system');
    expect(rows[0].n).to.equal(2);
  });
});
