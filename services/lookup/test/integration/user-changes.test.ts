import { expect } from 'chai';
import type { Principal } from '@tix/protos';
import { refusalOf, startLookupFixture, type LookupFixture } from './support.js';

const LAST_ADMIN = 'The last active admin cannot be deactivated or demoted';
const FORBIDDEN = { kind: 'permission_denied', message: 'Only an admin can change this' };

function sessionOf(user: { id: number; role: string }): Principal {
  return { kind: 'session', user_id: user.id, role: user.role as Principal['role'], scopes: [] };
}

describe('lookup: changing users (UpdateUser, ChangePassword, user.updated)', () => {
  let lookup: LookupFixture;
  let clock = new Date('2031-01-01T00:00:00.000Z');
  let ann: { id: number; role: string };
  let ada: { id: number; role: string };
  let vic: { id: number; role: string };

  /** Ada as the API shows her once renamed Ada Lovelace: still an active agent. */
  const adaLovelace = () => ({
    id: ada.id,
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    role: 'agent',
    is_active: true,
    is_system: false,
  });

  /** The outbox events written so far, oldest first. */
  async function events() {
    const { rows } = await lookup.sql.query<{
      id: string;
      event_type: string;
      payload: Record<string, unknown>;
    }>('SELECT id, event_type, payload FROM outbox_events ORDER BY seq');
    return rows;
  }

  /** The data of the latest event, after checking it is a user.updated of the envelope's shape. */
  async function latestUserUpdated(): Promise<Record<string, unknown>> {
    const row = (await events()).at(-1)!;
    expect(row.event_type).to.equal('user.updated');
    expect(row.payload).to.have.all.keys('id', 'type', 'occurred_at', 'source', 'actor', 'changes', 'data');
    expect(row.payload).to.include({ id: row.id, type: 'user.updated', source: 'lookup' });
    return row.payload.data as Record<string, unknown>;
  }

  before(async () => {
    lookup = await startLookupFixture({ now: () => clock });
    const create = (name: string, role: string, password?: string) =>
      lookup.client.CreateUser({
        name,
        email: `${name.toLowerCase()}@example.com`,
        role,
        ...(password === undefined ? {} : { password }),
      });
    ann = await create('Ann', 'admin', 'ann password');
    ada = await create('Ada', 'agent', 'old password');
    vic = await create('Vic', 'viewer');
  });
  after(() => lookup.stop());

  describe('UpdateUser', () => {
    it('changes the name (trimmed) and writes user.updated that ends no session', async () => {
      const user = await lookup.client.UpdateUser({ id: ada.id, name: '  Ada Lovelace ' });
      expect(user).to.deep.equal(adaLovelace());
      const row = (await events()).at(-1)!;
      expect(row.payload).to.deep.equal({
        id: row.id,
        type: 'user.updated',
        occurred_at: '2031-01-01T00:00:00.000Z',
        source: 'lookup',
        // No principal: the CLI, a system actor.
        actor: { kind: 'system', user_id: null, api_key_id: null },
        changes: { name: { from: 'Ada', to: 'Ada Lovelace' } },
        data: {
          id: ada.id,
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          role: 'agent',
          is_active: true,
          changed: ['name'],
          sessions_ended: false,
        },
      });
    });

    it('changes the role, and the active flag both ways, each ending the sessions', async () => {
      clock = new Date('2031-01-02T00:00:00.000Z');
      expect(await lookup.client.UpdateUser({ id: ada.id, role: 'team_lead' })).to.include({
        role: 'team_lead',
      });
      expect(await latestUserUpdated()).to.deep.include({
        role: 'team_lead',
        changed: ['role'],
        sessions_ended: true,
      });
      expect(await lookup.client.UpdateUser({ id: ada.id, is_active: false })).to.include({
        is_active: false,
      });
      expect(await latestUserUpdated()).to.deep.include({
        is_active: false,
        changed: ['is_active'],
        sessions_ended: true,
      });
      expect(
        await refusalOf(
          lookup.client.AuthenticatePassword({ email: 'ada@example.com', password: 'old password' }),
        ),
      ).to.deep.equal({ kind: 'unauthenticated', message: 'Invalid email or password' });
      expect(await lookup.client.UpdateUser({ id: ada.id, is_active: true, role: 'agent' })).to.include({
        is_active: true,
        role: 'agent',
      });
      expect(await latestUserUpdated()).to.deep.include({
        changed: ['role', 'is_active'],
        sessions_ended: true,
      });
    });

    it('sets a password (also for a user who had none), stored as a hash, and bumps updated_at', async () => {
      const before = await lookup.sql.query<{ updated_at: Date }>(
        'SELECT updated_at FROM users WHERE id = $1',
        [vic.id],
      );
      await lookup.client.UpdateUser({ id: vic.id, password: 'vic password' });
      expect(await latestUserUpdated()).to.deep.equal({
        id: vic.id,
        name: 'Vic',
        email: 'vic@example.com',
        role: 'viewer',
        is_active: true,
        changed: ['password'],
        sessions_ended: true,
      });
      expect(
        await lookup.client.AuthenticatePassword({ email: 'vic@example.com', password: 'vic password' }),
      ).to.include({ id: vic.id });
      const { rows } = await lookup.sql.query<{ password_hash: string; updated_at: Date }>(
        'SELECT password_hash, updated_at FROM users WHERE id = $1',
        [vic.id],
      );
      expect(rows[0]!.password_hash).to.match(/^scrypt\$/);
      expect(rows[0]!.updated_at.getTime()).to.be.greaterThan(before.rows[0]!.updated_at.getTime());
    });

    it('lists every changed field in one event, in the order name, role, is_active, password', async () => {
      await lookup.client.UpdateUser({
        id: vic.id,
        password: 'another vic password',
        is_active: true,
        role: 'agent',
        name: 'Victor',
      });
      // is_active was already true: it is no change.
      expect(await latestUserUpdated()).to.deep.include({
        name: 'Victor',
        role: 'agent',
        changed: ['name', 'role', 'password'],
        sessions_ended: true,
      });
      await lookup.client.UpdateUser({ id: vic.id, name: 'Vic', role: 'viewer' });
    });

    it('writes nothing and emits nothing for values the user already has', async () => {
      const count = (await events()).length;
      expect(
        await lookup.client.UpdateUser({ id: ada.id, name: 'Ada Lovelace', role: 'agent', is_active: true }),
      ).to.deep.equal(adaLovelace());
      expect(await events()).to.have.length(count);
    });

    it('refuses invalid values with the rules of creation (422, every field at once), writing no event', async () => {
      const count = (await events()).length;
      expect(
        await refusalOf(
          lookup.client.UpdateUser({ id: ada.id, name: '  ', role: 'boss', password: 'short' }),
        ),
      ).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: {
          name: ['Name is required'],
          role: ['Role must be one of admin, team_lead, agent, viewer'],
          password: ['Password must be at least 8 characters'],
        },
      });
      expect(
        await refusalOf(
          lookup.client.UpdateUser({ id: ada.id, name: 'A\u0007da', password: 'p'.repeat(1025) }),
        ),
      ).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: {
          name: ['Name must not contain control characters'],
          password: ['Password must be at most 1024 characters'],
        },
      });
      expect(
        (await refusalOf(lookup.client.UpdateUser({ id: ada.id, name: '😀'.repeat(201) }))).validation_errors,
      ).to.deep.equal({ name: ['Name must be at most 200 characters'] });
      expect(await lookup.client.UpdateUser({ id: ada.id, name: '😀'.repeat(200) })).to.include({
        name: '😀'.repeat(200),
      });
      expect(await events()).to.have.length(count + 1);
      await lookup.client.UpdateUser({ id: ada.id, name: 'Ada Lovelace' });
    });

    it('refuses a request that changes no field (422 on body)', async () => {
      expect(await refusalOf(lookup.client.UpdateUser({ id: ada.id }))).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: { body: ['Give at least one field to change: name, role, is_active or password'] },
      });
    });

    it('answers 404 for an unknown id', async () => {
      expect(await refusalOf(lookup.client.UpdateUser({ id: 424242, name: 'Nobody' }))).to.deep.equal({
        kind: 'not_found',
        message: 'User not found',
      });
    });

    it('refuses to deactivate or demote the last active admin, naming the field', async () => {
      const count = (await events()).length;
      const refusal = (fields: string[]) => ({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: Object.fromEntries(fields.map((field) => [field, [LAST_ADMIN]])),
      });
      expect(await refusalOf(lookup.client.UpdateUser({ id: ann.id, is_active: false }))).to.deep.equal(
        refusal(['is_active']),
      );
      expect(await refusalOf(lookup.client.UpdateUser({ id: ann.id, role: 'agent' }))).to.deep.equal(
        refusal(['role']),
      );
      expect(
        await refusalOf(lookup.client.UpdateUser({ id: ann.id, role: 'viewer', is_active: false })),
      ).to.deep.equal(refusal(['role', 'is_active']));
      // An inactive admin is no admin to fall back on.
      const dormant = await lookup.client.CreateUser({
        name: 'Dee',
        email: 'dee@example.com',
        role: 'admin',
      });
      await lookup.client.UpdateUser({ id: dormant.id, is_active: false });
      expect(await refusalOf(lookup.client.UpdateUser({ id: ann.id, role: 'agent' }))).to.deep.equal(
        refusal(['role']),
      );
      expect(await lookup.client.UpdateUser({ id: ann.id, name: 'Ann Admin' })).to.include({ role: 'admin' });
      expect(await events()).to.have.length(count + 2);
    });

    it('lets an admin go once another admin is active; of two admins demoted at once, one stays', async () => {
      const bob = await lookup.client.CreateUser({ name: 'Bob', email: 'bob@example.com', role: 'admin' });
      expect(await lookup.client.UpdateUser({ id: ann.id, role: 'team_lead' })).to.include({
        role: 'team_lead',
      });
      expect(await refusalOf(lookup.client.UpdateUser({ id: bob.id, is_active: false }))).to.include({
        kind: 'validation_failed',
      });
      await lookup.client.UpdateUser({ id: ann.id, role: 'admin' });

      const outcomes = await Promise.allSettled([
        lookup.client.UpdateUser({ id: ann.id, role: 'agent' }),
        lookup.client.UpdateUser({ id: bob.id, is_active: false }),
      ]);
      expect(outcomes.map((outcome) => outcome.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
      const { rows } = await lookup.sql.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM users WHERE role = 'admin' AND is_active",
      );
      expect(rows[0]!.n).to.equal(1);
      // Back to Ann as the one active admin, Bob an inactive admin.
      await lookup.client.UpdateUser({ id: ann.id, role: 'admin' });
      await lookup.client.UpdateUser({ id: bob.id, is_active: false });
    });

    it('lets a signed-in user change their own name, and nothing else', async () => {
      const session = sessionOf(ada);
      expect(
        await lookup.client.UpdateUser({ id: ada.id, name: 'Ada L.' }, { principal: session }),
      ).to.include({
        name: 'Ada L.',
      });
      const count = (await events()).length;
      for (const request of [
        { id: ada.id, role: 'admin' },
        { id: ada.id, is_active: false },
        { id: ada.id, password: 'self-set password' },
        { id: ada.id, name: 'Ada', role: 'agent' },
        { id: vic.id, name: 'Not mine' },
        { id: 424242, name: 'Nobody' },
      ]) {
        expect(
          await refusalOf(lookup.client.UpdateUser(request, { principal: session })),
          JSON.stringify(request),
        ).to.deep.equal(FORBIDDEN);
      }
      const apiKeyOfViewer: Principal = { ...sessionOf(vic), kind: 'api_key', key_id: 1 };
      expect(
        await refusalOf(lookup.client.UpdateUser({ id: ada.id, name: 'X' }, { principal: apiKeyOfViewer })),
      ).to.deep.equal(FORBIDDEN);
      expect(await events()).to.have.length(count);
    });

    it('lets an admin principal change anyone; user.updated carries the admin as its actor', async () => {
      const before = (await lookup.client.GetUsers({ ids: [ada.id] })).users[0]!;
      expect(
        await lookup.client.UpdateUser(
          { id: ada.id, name: 'Ada Lovelace', role: 'viewer' },
          { principal: sessionOf(ann) },
        ),
      ).to.include({ name: 'Ada Lovelace', role: 'viewer' });
      const row = (await events()).at(-1)!;
      expect(row.payload).to.deep.include({
        actor: { kind: 'user', user_id: ann.id, api_key_id: null },
        changes: {
          ...(before.name === 'Ada Lovelace' ? {} : { name: { from: before.name, to: 'Ada Lovelace' } }),
          role: { from: before.role, to: 'viewer' },
        },
      });
      await lookup.client.UpdateUser({ id: ada.id, role: 'agent' });
    });
  });

  describe('ChangePassword', () => {
    /** The refusal of a ChangePassword as `principal` (none: not signed in). */
    const changeRefused = (current_password: string, new_password: string, principal?: Principal) =>
      refusalOf(lookup.client.ChangePassword({ current_password, new_password }, principal && { principal }));

    it('needs a signed-in user', async () => {
      expect(await changeRefused('old password', 'x'.repeat(9))).to.deep.equal({
        kind: 'unauthenticated',
        message: 'Authentication required',
      });
    });

    it('refuses a wrong current password and an invalid new one (422), writing nothing', async () => {
      const count = (await events()).length;
      expect(await changeRefused('wrong password', 'a new password', sessionOf(ada))).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: { current_password: ['Current password is incorrect'] },
      });
      expect(await changeRefused('wrong password', 'short', sessionOf(ada))).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: {
          new_password: ['Password must be at least 8 characters'],
          current_password: ['Current password is incorrect'],
        },
      });
      expect(await events()).to.have.length(count);
    });

    it('refuses a user without a password as a wrong current password', async () => {
      const nel = await lookup.client.CreateUser({ name: 'Nel', email: 'nel@example.com', role: 'agent' });
      expect(await changeRefused('', 'a new password', sessionOf(nel))).to.deep.include({
        validation_errors: { current_password: ['Current password is incorrect'] },
      });
    });

    it('answers 401 for a principal whose user is unknown or inactive', async () => {
      const bob = (await lookup.client.ListUsers({})).users.find((user) => user.email === 'bob@example.com')!;
      for (const principal of [sessionOf({ id: 424242, role: 'agent' }), sessionOf(bob)]) {
        expect(await changeRefused('x', 'a new password', principal)).to.deep.equal({
          kind: 'unauthenticated',
          message: 'Authentication required',
        });
      }
    });

    it('sets the new password: sign-in works with it and not with the old one; user.updated ends the sessions', async () => {
      clock = new Date('2031-02-01T00:00:00.000Z');
      const user = await lookup.client.ChangePassword(
        { current_password: 'old password', new_password: 'a new password' },
        { principal: sessionOf(ada) },
      );
      expect(user).to.deep.equal(adaLovelace());
      expect(
        await lookup.client.AuthenticatePassword({ email: 'ada@example.com', password: 'a new password' }),
      ).to.include({ id: ada.id });
      expect(
        await refusalOf(
          lookup.client.AuthenticatePassword({ email: 'ada@example.com', password: 'old password' }),
        ),
      ).to.include({ kind: 'unauthenticated' });
      const row = (await events()).at(-1)!;
      expect(row.payload).to.deep.equal({
        id: row.id,
        type: 'user.updated',
        occurred_at: '2031-02-01T00:00:00.000Z',
        source: 'lookup',
        // The user themself; the password never appears, only that it changed.
        actor: { kind: 'user', user_id: ada.id, api_key_id: null },
        changes: { password: { from: '[redacted]', to: '[redacted]' } },
        data: {
          id: ada.id,
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          role: 'agent',
          is_active: true,
          changed: ['password'],
          sessions_ended: true,
        },
      });
    });
  });
});
