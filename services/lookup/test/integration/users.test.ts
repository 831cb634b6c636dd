import { expect } from 'chai';
import { refusalOf, startLookupFixture, type LookupFixture } from './support.js';

describe('lookup: users', () => {
  let lookup: LookupFixture;
  const ids: Record<string, number> = {};

  before(async () => {
    lookup = await startLookupFixture();
  });
  after(() => lookup.stop());

  it('CreateUser stores the email lower-cased and answers the spec User object', async () => {
    const user = await lookup.client.CreateUser({
      name: 'Ann Admin',
      email: ' Ann@Example.COM',
      role: 'admin',
      password: 'right password',
    });
    ids.ann = user.id;
    expect(user).to.deep.equal({
      id: user.id,
      name: 'Ann Admin',
      email: 'ann@example.com',
      role: 'admin',
      is_active: true,
      is_system: false,
    });
    for (const [name, email, role] of [
      ['Tom', 'tom@example.com', 'team_lead'],
      ['Ada', 'ada@example.com', 'agent'],
      ['Vic', 'vic@example.com', 'viewer'],
    ] as const) {
      ids[name.toLowerCase()] = (await lookup.client.CreateUser({ name, email, role })).id;
    }
  });

  it('stores only a scrypt hash of the password, and none for users created without one', async () => {
    const { rows } = await lookup.sql.query<{ email: string; password_hash: string | null }>(
      'SELECT email, password_hash FROM users WHERE NOT is_system ORDER BY id',
    );
    expect(rows[0]!.password_hash).to.match(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{88}$/);
    expect(rows[0]!.password_hash).not.to.contain('right password');
    expect(rows.slice(1).map((row) => row.password_hash)).to.deep.equal([null, null, null]);
  });

  it('CreateUser refuses a taken email in any case, a bad role, a bad email and a short password (422)', async () => {
    expect(
      await refusalOf(lookup.client.CreateUser({ name: 'Other', email: 'ANN@example.com', role: 'agent' })),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { email: ['A user with email "ann@example.com" already exists'] },
    });
    expect(
      await refusalOf(
        lookup.client.CreateUser({ name: 'X', email: 'x@', role: 'superuser', password: 'short' }),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        email: ['Email must be a valid email address'],
        role: ['Role must be one of admin, team_lead, agent, viewer'],
        password: ['Password must be at least 8 characters'],
      },
    });
  });

  it('ListUsers lists users in id order, leaving inactive ones out when asked', async () => {
    await lookup.sql.query('UPDATE users SET is_active = false WHERE id = $1', [ids.vic]);
    const all = await lookup.client.ListUsers({});
    // The assistant's system user (made by the migration, so first) is listed, marked as such.
    expect(all.users.map((u) => [u.email, u.role, u.is_active, u.is_system])).to.deep.equal([
      ['ai@tix.invalid', 'agent', true, true],
      ['mail@tix.invalid', 'agent', true, true],
      ['ann@example.com', 'admin', true, false],
      ['tom@example.com', 'team_lead', true, false],
      ['ada@example.com', 'agent', true, false],
      ['vic@example.com', 'viewer', false, false],
    ]);
    const active = await lookup.client.ListUsers({ active_only: true });
    expect(active.users.map((u) => u.id)).to.deep.equal([
      all.users[0]!.id,
      all.users[1]!.id,
      ids.ann,
      ids.tom,
      ids.ada,
    ]);
  });

  it('GetUsers answers the existing users among the ids, in id order', async () => {
    const found = await lookup.client.GetUsers({ ids: [ids.ada!, 9999, ids.ann!, ids.ada!] });
    expect(found.users.map((u) => u.id)).to.deep.equal([ids.ann, ids.ada]);
    expect((await lookup.client.GetUsers({ ids: [] })).users).to.deep.equal([]);
    expect(
      await refusalOf(lookup.client.GetUsers({ ids: Array.from({ length: 1001 }, (_, i) => i + 1) })),
    ).to.deep.equal({ kind: 'bad_request', message: 'At most 1000 ids per call' });
  });

  it('AuthenticatePassword answers the user for the right email (any case) and password', async () => {
    expect(
      await lookup.client.AuthenticatePassword({ email: 'ANN@example.com', password: 'right password' }),
    ).to.deep.equal({
      id: ids.ann,
      name: 'Ann Admin',
      email: 'ann@example.com',
      role: 'admin',
      is_active: true,
      is_system: false,
    });
  });

  it('AuthenticatePassword answers the same 401 for every failure', async () => {
    await lookup.client.CreateUser({
      name: 'Ina',
      email: 'ina@example.com',
      role: 'agent',
      password: 'right password',
    });
    await lookup.sql.query("UPDATE users SET is_active = false WHERE email = 'ina@example.com'");
    const failure = { kind: 'unauthenticated', message: 'Invalid email or password' };
    for (const [email, password] of [
      ['ann@example.com', 'wrong password'],
      ['nobody@example.com', 'right password'],
      ['ina@example.com', 'right password'],
      ['ada@example.com', 'anything at all'],
      ['', ''],
    ]) {
      expect(await refusalOf(lookup.client.AuthenticatePassword({ email, password })), email).to.deep.equal(
        failure,
      );
    }
  });
});
