import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { Principal } from '@tix/protos';
import { refusalOf, startLookupFixture, type LookupFixture } from './support.js';

const INVALID_TOKEN = {
  kind: 'validation_failed',
  message: 'Validation failed',
  validation_errors: { token: ['Reset link is invalid or has expired'] },
};

describe('lookup: password reset (IssuePasswordReset, ResetPassword)', () => {
  let lookup: LookupFixture;
  let clock = new Date('2032-03-01T10:00:00.000Z');
  const minutes = (n: number) => (clock = new Date(clock.getTime() + n * 60_000));
  let counter = 0;

  before(async () => {
    lookup = await startLookupFixture({ now: () => clock });
  });
  after(() => lookup.stop());

  /** A fresh active user (own address, so the per-user hourly cap of one test never meets another's). */
  async function newUser(options: { password?: string; role?: string } = {}) {
    counter += 1;
    return lookup.client.CreateUser({
      name: `Reset ${counter}`,
      email: `reset${counter}@example.com`,
      role: options.role ?? 'agent',
      ...(options.password === undefined ? {} : { password: options.password }),
    });
  }

  async function issue(email: string) {
    const issued = await lookup.client.IssuePasswordReset({ email });
    expect(issued.issued, `issued for ${email}`).to.equal(true);
    return issued.token!;
  }

  const signIn = (email: string, password: string) => lookup.client.AuthenticatePassword({ email, password });

  it('issues a 43-character token, stores only its SHA-256, expiring 30 minutes later', async () => {
    const user = await newUser({ password: 'old password 1' });
    const issued = await lookup.client.IssuePasswordReset({ email: `  ${user.email.toUpperCase()} ` });
    expect(issued.issued).to.equal(true);
    expect(issued.token).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(issued.expires_at).to.equal(new Date(clock.getTime() + 30 * 60_000).toISOString());
    expect(issued.user).to.deep.include({ id: user.id, email: user.email });
    const { rows } = await lookup.sql.query(
      'SELECT token_hash, used_at FROM password_resets WHERE user_id = $1',
      [user.id],
    );
    expect(rows).to.deep.equal([
      { token_hash: createHash('sha256').update(issued.token!).digest('hex'), used_at: null },
    ]);
  });

  it('a token sets the password once, writes user.updated ending sessions; a second use is refused', async () => {
    const user = await newUser({ password: 'old password 2' });
    const token = await issue(user.email);
    const reset = await lookup.client.ResetPassword({ token, new_password: 'brand new password' });
    expect(reset).to.deep.equal({ ...user, is_active: true });
    await signIn(user.email, 'brand new password');
    expect((await refusalOf(signIn(user.email, 'old password 2'))).kind).to.equal('unauthenticated');
    const { rows } = await lookup.sql.query(
      "SELECT payload FROM outbox_events WHERE event_type = 'user.updated' ORDER BY seq DESC LIMIT 1",
    );
    expect(rows[0].payload.data).to.deep.include({
      id: user.id,
      changed: ['password'],
      sessions_ended: true,
    });
    expect(rows[0].payload.occurred_at).to.equal(clock.toISOString());
    expect(
      await refusalOf(lookup.client.ResetPassword({ token, new_password: 'another new password' })),
    ).to.deep.equal(INVALID_TOKEN);
    await signIn(user.email, 'brand new password');
  });

  it('expires: works 29 minutes after issue, is refused like an unknown token at 30', async () => {
    const early = await newUser({ password: 'old password 3' });
    const late = await newUser({ password: 'old password 3b' });
    const earlyToken = await issue(early.email);
    const lateToken = await issue(late.email);
    minutes(29);
    await lookup.client.ResetPassword({ token: earlyToken, new_password: 'in time password' });
    minutes(1);
    expect(
      await refusalOf(lookup.client.ResetPassword({ token: lateToken, new_password: 'too late password' })),
    ).to.deep.equal(INVALID_TOKEN);
    await signIn(late.email, 'old password 3b');
  });

  it('a second token voids the first', async () => {
    const user = await newUser({ password: 'old password 4' });
    const first = await issue(user.email);
    const second = await issue(user.email);
    expect(
      await refusalOf(lookup.client.ResetPassword({ token: first, new_password: 'first link password' })),
    ).to.deep.equal(INVALID_TOKEN);
    await lookup.client.ResetPassword({ token: second, new_password: 'second link password' });
    await signIn(user.email, 'second link password');
  });

  it('unknown, malformed and inactive addresses are not issued a token', async () => {
    const inactive = await newUser({ password: 'old password 5' });
    await lookup.client.UpdateUser({ id: inactive.id, is_active: false });
    for (const email of ['nobody@example.com', 'not an address', '', inactive.email]) {
      const answer = await lookup.client.IssuePasswordReset({ email });
      expect(answer.issued, email).to.equal(false);
      expect(answer.token, email).to.equal(undefined);
      expect(answer.user, email).to.equal(undefined);
    }
    const { rows } = await lookup.sql.query('SELECT 1 FROM password_resets WHERE user_id = $1', [
      inactive.id,
    ]);
    expect(rows).to.have.length(0);
  });

  it('refuses the token of a user deactivated after it was issued, and leaves the password alone', async () => {
    const user = await newUser({ password: 'old password 6' });
    const token = await issue(user.email);
    await lookup.client.UpdateUser({ id: user.id, is_active: false });
    expect(
      await refusalOf(lookup.client.ResetPassword({ token, new_password: 'while inactive' })),
    ).to.deep.equal(INVALID_TOKEN);
    await lookup.client.UpdateUser({ id: user.id, is_active: true });
    await signIn(user.email, 'old password 6');
  });

  it('a password set by other means (ChangePassword, an admin) voids unspent links', async () => {
    const user = await newUser({ password: 'old password 12' });
    const token = await issue(user.email);
    await lookup.client.ChangePassword(
      { current_password: 'old password 12', new_password: 'changed by hand' },
      { principal: { kind: 'session', user_id: user.id, role: 'agent', scopes: [] } },
    );
    expect(
      await refusalOf(lookup.client.ResetPassword({ token, new_password: 'from the old link' })),
    ).to.deep.equal(INVALID_TOKEN);
    const second = await issue(user.email);
    await lookup.client.UpdateUser({ id: user.id, password: 'set by an admin' });
    expect(
      await refusalOf(lookup.client.ResetPassword({ token: second, new_password: 'from the old link' })),
    ).to.deep.equal(INVALID_TOKEN);
    await signIn(user.email, 'set by an admin');
  });

  it('checks the new password as ChangePassword does, without spending the token', async () => {
    const user = await newUser({ password: 'old password 7' });
    const token = await issue(user.email);
    expect(await refusalOf(lookup.client.ResetPassword({ token, new_password: 'short' }))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { new_password: ['Password must be at least 8 characters'] },
    });
    expect(await refusalOf(lookup.client.ResetPassword({ token: 'x', new_password: 'short' }))).to.deep.equal(
      {
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: {
          token: ['Reset link is invalid or has expired'],
          new_password: ['Password must be at least 8 characters'],
        },
      },
    );
    await lookup.client.ResetPassword({ token, new_password: 'long enough now' });
  });

  it('lets a user who never had a password set one', async () => {
    const user = await newUser();
    const token = await issue(user.email);
    await lookup.client.ResetPassword({ token, new_password: 'my first password' });
    await signIn(user.email, 'my first password');
  });

  it('two concurrent resets with one token: exactly one wins', async () => {
    const user = await newUser({ password: 'old password 8' });
    const token = await issue(user.email);
    const outcomes = await Promise.allSettled(
      ['racer one password', 'racer two password', 'racer three password'].map((new_password) =>
        lookup.client.ResetPassword({ token, new_password }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).to.have.length(1);
    const { rows } = await lookup.sql.query(
      "SELECT count(*)::int AS n FROM outbox_events WHERE event_type = 'user.updated' AND payload->'data'->>'id' = $1",
      [String(user.id)],
    );
    expect(rows[0].n).to.equal(1);
  });

  it('issues at most 5 links per user per hour by email, then quietly none', async () => {
    const user = await newUser({ password: 'old password 9' });
    for (let i = 0; i < 5; i += 1) await issue(user.email);
    expect((await lookup.client.IssuePasswordReset({ email: user.email })).issued).to.equal(false);
    minutes(61);
    await issue(user.email);
  });

  it('prunes rows older than an hour when issuing', async () => {
    const user = await newUser({ password: 'old password 10' });
    await issue(user.email);
    minutes(90);
    const other = await newUser({ password: 'old password 11' });
    await issue(other.email);
    const { rows } = await lookup.sql.query('SELECT 1 FROM password_resets WHERE user_id = $1', [user.id]);
    expect(rows).to.have.length(0);
  });

  describe('by user id (an admin issuing a link)', () => {
    const admin: Principal = { kind: 'session', user_id: 1, role: 'admin', scopes: [] };
    const agent: Principal = { kind: 'session', user_id: 2, role: 'agent', scopes: [] };

    it('issues for an admin or the CLI (no principal), refuses anyone else', async () => {
      const user = await newUser();
      const issued = await lookup.client.IssuePasswordReset({ user_id: user.id }, { principal: admin });
      expect(issued).to.deep.include({ issued: true });
      await lookup.client.ResetPassword({ token: issued.token!, new_password: 'admin issued link' });
      await signIn(user.email, 'admin issued link');
      expect((await lookup.client.IssuePasswordReset({ user_id: user.id })).issued).to.equal(true);
      expect(
        await refusalOf(lookup.client.IssuePasswordReset({ user_id: user.id }, { principal: agent })),
      ).to.deep.equal({ kind: 'permission_denied', message: 'This operation requires the admin role' });
    });

    it('404 for an unknown user, 422 for an inactive one', async () => {
      expect(
        await refusalOf(lookup.client.IssuePasswordReset({ user_id: 987654 }, { principal: admin })),
      ).to.deep.equal({ kind: 'not_found', message: 'User not found' });
      const user = await newUser();
      await lookup.client.UpdateUser({ id: user.id, is_active: false });
      expect(
        await refusalOf(lookup.client.IssuePasswordReset({ user_id: user.id }, { principal: admin })),
      ).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: {
          user_id: ['User is inactive: activate the user before issuing a reset link'],
        },
      });
    });
  });
});
