import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { eventually } from '@tix/kit/testing';
import { fields, refusalOf, startLookupFixture, type LookupFixture } from './support.js';

const ALL_SCOPES = ['tickets:read', 'tickets:write', 'tickets:delete', 'comments:read', 'comments:write'];

describe('lookup: API keys', () => {
  let lookup: LookupFixture;
  let clock = new Date('2030-01-01T00:00:00.000Z');
  let projectId: number;
  let adminId: number;
  let agentId: number;
  let scopedKey: { id: number; key: string };
  let unscopedKey: { id: number; key: string };

  before(async () => {
    lookup = await startLookupFixture({ now: () => clock });
    projectId = (await lookup.client.CreateProject({ name: 'Acme', slug: 'acme', prefix: 'AC' })).id;
    await lookup.client.CreateProject({ name: 'Other', slug: 'other', prefix: 'OT' });
    adminId = (await lookup.client.CreateUser({ name: 'Ann', email: 'ann@example.com', role: 'admin' })).id;
    agentId = (await lookup.client.CreateUser({ name: 'Ada', email: 'ada@example.com', role: 'agent' })).id;
  });
  after(() => lookup.stop());

  it('CreateApiKey (owner by email, project by slug) answers the value once, with scopes in canonical order', async () => {
    const created = await lookup.client.CreateApiKey({
      user_email: 'ADA@example.com',
      scopes: ['comments:write', 'tickets:read', 'tickets:read'],
      project_slug: 'acme',
      name: 'support bot',
    });
    scopedKey = created;
    expect(fields(created)).to.deep.equal({
      id: created.id,
      key: created.key,
      scopes: ['tickets:read', 'comments:write'],
      project_id: projectId,
      user_id: agentId,
      name: 'support bot',
      created_at: created.created_at,
      prefix: created.key.slice(0, 12),
    });
    expect(created.key).to.match(/^tix_[0-9A-Za-z]{49}$/);
    expect(Date.parse(created.created_at)).not.to.be.NaN;
  });

  it('CreateApiKey (owner by id, unscoped, no name) names the key after its creation time', async () => {
    const created = await lookup.client.CreateApiKey({ user_id: adminId, scopes: ALL_SCOPES });
    unscopedKey = created;
    expect(created.project_id).to.equal(undefined);
    expect(created.name).to.equal('key created 2030-01-01 00:00 UTC');
    expect(created.scopes).to.deep.equal(ALL_SCOPES);
  });

  it('stores only the SHA-256 of the key and its 12-character prefix', async () => {
    const { rows } = await lookup.sql.query('SELECT * FROM api_keys WHERE id = $1', [scopedKey.id]);
    const row = rows[0] as Record<string, unknown>;
    expect(row.key_hash).to.equal(createHash('sha256').update(scopedKey.key).digest('hex'));
    expect(row.prefix).to.equal(scopedKey.key.slice(0, 12));
    const everything = JSON.stringify((await lookup.sql.query('SELECT * FROM api_keys')).rows);
    expect(everything).not.to.contain(scopedKey.key.slice(12, 40));
  });

  it('CreateApiKey refuses bad scopes, unknown or missing owners and unknown projects (422 naming the field)', async () => {
    expect(
      await refusalOf(
        lookup.client.CreateApiKey({ user_email: 'ada@example.com', scopes: ['tickets:read', 'root'] }),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        scopes: [
          'Unknown scope "root"; allowed: tickets:read, tickets:write, tickets:delete, comments:read, comments:write, customers:read, customers:write',
        ],
      },
    });
    expect(
      await refusalOf(
        lookup.client.CreateApiKey({ user_email: 'ghost@example.com', scopes: [], project_slug: 'nope' }),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        scopes: [
          'At least one scope is required (tickets:read, tickets:write, tickets:delete, comments:read, comments:write, customers:read, customers:write)',
        ],
        user: ['No user with email "ghost@example.com"'],
        project: ['No project with slug "nope"'],
      },
    });
    expect(
      await refusalOf(lookup.client.CreateApiKey({ scopes: ['tickets:read'], project_id: 999 })),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        user: ['The key owner (user id or email) is required'],
        project: ['No project with id 999'],
      },
    });
    expect(
      await refusalOf(lookup.client.CreateApiKey({ user_id: 999, scopes: ['tickets:read'] })),
    ).to.deep.include({
      validation_errors: { user: ['No user with id 999'] },
    });
  });

  it('CreateApiKey refuses an inactive owner', async () => {
    const ina = await lookup.client.CreateUser({ name: 'Ina', email: 'ina@example.com', role: 'agent' });
    await lookup.sql.query('UPDATE users SET is_active = false WHERE id = $1', [ina.id]);
    expect(
      await refusalOf(lookup.client.CreateApiKey({ user_id: ina.id, scopes: ['tickets:read'] })),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { user: ['User ina@example.com is inactive; keys act as their user'] },
    });
  });

  it('AuthenticateApiKey answers the principal of scoped and unscoped keys', async () => {
    expect(fields(await lookup.client.AuthenticateApiKey({ key: scopedKey.key }))).to.deep.equal({
      key_id: scopedKey.id,
      user_id: agentId,
      role: 'agent',
      scopes: ['tickets:read', 'comments:write'],
      project_id: projectId,
    });
    expect(await lookup.client.AuthenticateApiKey({ key: unscopedKey.key })).to.deep.equal({
      key_id: unscopedKey.id,
      user_id: adminId,
      role: 'admin',
      scopes: ALL_SCOPES,
    });
  });

  it('AuthenticateApiKey records the last use, at most once a minute', async () => {
    const lastUsed = async () =>
      (
        await lookup.sql.query<{ last_used_at: Date | null }>(
          'SELECT last_used_at FROM api_keys WHERE id = $1',
          [scopedKey.id],
        )
      ).rows[0]!.last_used_at;
    const first = await eventually(lastUsed);
    expect(first.toISOString()).to.equal('2030-01-01T00:00:00.000Z');

    clock = new Date('2030-01-01T00:00:59.000Z');
    await lookup.client.AuthenticateApiKey({ key: scopedKey.key });
    clock = new Date('2030-01-01T00:01:00.000Z');
    await lookup.client.AuthenticateApiKey({ key: scopedKey.key });
    await eventually(async () => (await lastUsed())?.toISOString() === '2030-01-01T00:01:00.000Z');

    const listed = await lookup.client.ListApiKeys({ user_email: 'ada@example.com' });
    expect(listed.keys[0]!.last_used_at).to.equal('2030-01-01T00:01:00.000Z');
  });

  it('AuthenticateApiKey refuses malformed, unknown and inactive-owner keys with 401', async () => {
    const flipped = scopedKey.key.slice(0, -1) + (scopedKey.key.endsWith('A') ? 'B' : 'A');
    const invalid = { kind: 'unauthenticated', message: 'Invalid API key' };
    expect(await refusalOf(lookup.client.AuthenticateApiKey({ key: 'not a key' }))).to.deep.equal(invalid);
    expect(await refusalOf(lookup.client.AuthenticateApiKey({ key: flipped }))).to.deep.equal(invalid);
    expect(await refusalOf(lookup.client.AuthenticateApiKey({ key: '' }))).to.deep.equal(invalid);

    const victim = await lookup.client.CreateUser({
      name: 'Leaver',
      email: 'leaver@example.com',
      role: 'agent',
    });
    const key = await lookup.client.CreateApiKey({ user_id: victim.id, scopes: ['tickets:read'] });
    await lookup.client.AuthenticateApiKey({ key: key.key });
    await lookup.sql.query('UPDATE users SET is_active = false WHERE id = $1', [victim.id]);
    expect(await refusalOf(lookup.client.AuthenticateApiKey({ key: key.key }))).to.deep.equal({
      kind: 'unauthenticated',
      message: 'API key belongs to an inactive user',
    });
    // A well-formed key that was never issued.
    await lookup.sql.query('DELETE FROM api_keys WHERE id = $1', [key.id]);
    expect(await refusalOf(lookup.client.AuthenticateApiKey({ key: key.key }))).to.deep.equal(invalid);
  });

  it('ListApiKeys filters by owner email and project slug and never carries values or hashes', async () => {
    const all = await lookup.client.ListApiKeys({});
    expect(all.keys.map((k) => k.id)).to.deep.equal([scopedKey.id, unscopedKey.id]);
    const byUser = await lookup.client.ListApiKeys({ user_email: 'ann@example.com' });
    expect(byUser.keys.map((k) => k.id)).to.deep.equal([unscopedKey.id]);
    const byProject = await lookup.client.ListApiKeys({ project_slug: 'acme' });
    expect(byProject.keys.map((k) => k.id)).to.deep.equal([scopedKey.id]);
    expect(
      (await lookup.client.ListApiKeys({ user_email: 'ann@example.com', project_slug: 'acme' })).keys,
    ).to.deep.equal([]);
    expect((await lookup.client.ListApiKeys({ project_slug: 'other' })).keys).to.deep.equal([]);
    expect(fields(byProject.keys[0]!)).to.deep.equal({
      id: scopedKey.id,
      name: 'support bot',
      prefix: scopedKey.key.slice(0, 12),
      scopes: ['tickets:read', 'comments:write'],
      project_id: projectId,
      user_id: agentId,
      created_at: byProject.keys[0]!.created_at,
      last_used_at: '2030-01-01T00:01:00.000Z',
    });
    expect(JSON.stringify(all)).not.to.contain(scopedKey.key).and.not.to.contain(unscopedKey.key);
  });

  it('ListApiKeys answers 404 for an unknown owner email or project slug', async () => {
    expect(await refusalOf(lookup.client.ListApiKeys({ user_email: 'ghost@example.com' }))).to.deep.equal({
      kind: 'not_found',
      message: 'User not found: "ghost@example.com"',
    });
    expect(await refusalOf(lookup.client.ListApiKeys({ project_slug: 'nope' }))).to.deep.equal({
      kind: 'not_found',
      message: 'Project not found: "nope"',
    });
  });

  it('RevokeApiKey sets revoked_at and writes exactly one api_key.revoked event to the outbox', async () => {
    clock = new Date('2030-01-02T00:00:00.000Z');
    const revoked = await lookup.client.RevokeApiKey({ id: scopedKey.id });
    expect(revoked).to.deep.equal({ id: scopedKey.id, revoked_at: '2030-01-02T00:00:00.000Z' });
    const { rows } = await lookup.sql.query<{
      id: string;
      event_type: string;
      payload: Record<string, unknown>;
    }>('SELECT id, event_type, payload FROM outbox_events');
    expect(rows).to.have.length(1);
    expect(rows[0]!.event_type).to.equal('api_key.revoked');
    expect(rows[0]!.payload).to.deep.equal({
      id: rows[0]!.id,
      type: 'api_key.revoked',
      occurred_at: '2030-01-02T00:00:00.000Z',
      source: 'lookup',
      actor: { kind: 'system', user_id: null, api_key_id: null },
      changes: {},
      data: { id: scopedKey.id, revoked_at: '2030-01-02T00:00:00.000Z' },
    });
  });

  it('RevokeApiKey is idempotent: the original time, no second event', async () => {
    clock = new Date('2030-01-03T00:00:00.000Z');
    expect(await lookup.client.RevokeApiKey({ id: scopedKey.id })).to.deep.equal({
      id: scopedKey.id,
      revoked_at: '2030-01-02T00:00:00.000Z',
    });
    const { rows } = await lookup.sql.query('SELECT 1 FROM outbox_events');
    expect(rows).to.have.length(1);
  });

  it('a revoked key is refused from then on, and listed with its revocation time', async () => {
    expect(await refusalOf(lookup.client.AuthenticateApiKey({ key: scopedKey.key }))).to.deep.equal({
      kind: 'unauthenticated',
      message: 'API key has been revoked',
    });
    const listed = await lookup.client.ListApiKeys({ project_slug: 'acme' });
    expect(listed.keys[0]!.revoked_at).to.equal('2030-01-02T00:00:00.000Z');
    expect(await lookup.client.AuthenticateApiKey({ key: unscopedKey.key })).to.include({
      key_id: unscopedKey.id,
    });
  });

  it('RevokeApiKey answers 404 for an unknown key and writes nothing', async () => {
    expect(await refusalOf(lookup.client.RevokeApiKey({ id: 424242 }))).to.deep.equal({
      kind: 'not_found',
      message: 'API key not found',
    });
    expect((await lookup.sql.query('SELECT 1 FROM outbox_events')).rows).to.have.length(1);
  });
});
