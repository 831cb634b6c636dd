import { expect } from 'chai';
import { CUSTOM_FIELD_TYPES, type lookup } from '@tix/protos';
import { fields, startLookupFixture, type LookupFixture } from './support.js';

describe('lookup: SeedDemo', () => {
  let lookup: LookupFixture;
  let first: lookup.SeedDemoResult__Output;

  before(async () => {
    lookup = await startLookupFixture();
  });
  after(() => lookup.stop());

  it('creates two projects: support (default workflow) and platform (custom workflow)', async () => {
    first = await lookup.client.SeedDemo({});
    expect(first.projects.map((p) => [p.slug, p.prefix])).to.deep.equal([
      ['support', 'SUP'],
      ['platform', 'PLAT'],
    ]);
    expect(first.projects[0]!.statuses.map((s) => s.slug)).to.deep.equal([
      'open',
      'work_in_progress',
      'waiting',
      'closed',
    ]);
    expect(first.projects[1]!.statuses.map((s) => [s.slug, s.is_closed])).to.deep.equal([
      ['triage', false],
      ['todo', false],
      ['in_progress', false],
      ['in_review', false],
      ['done', true],
      ['wont_do', true],
    ]);
  });

  it('creates ticket types whose custom fields cover all ten field types, one default per project', () => {
    const types = first.ticket_types.flatMap((t) =>
      (JSON.parse(t.field_schema_json) as { type: string }[]).map((f) => f.type),
    );
    expect([...new Set(types)].sort()).to.deep.equal([...CUSTOM_FIELD_TYPES].sort());
    for (const project of first.projects) {
      const own = first.ticket_types.filter((t) => t.project_id === project.id);
      expect(own.length, project.slug).to.be.greaterThan(0);
      expect(
        own.filter((t) => t.is_default),
        project.slug,
      ).to.have.length(1);
    }
  });

  it('creates one active user of every role', () => {
    expect(first.users.map((u) => [u.role, u.is_active])).to.deep.equal([
      ['admin', true],
      ['team_lead', true],
      ['agent', true],
      ['viewer', true],
    ]);
    expect(first.users.map((u) => u.email)).to.include('admin@example.com');
  });

  it('gives every demo user it creates a random password, shown once, that signs in', async () => {
    expect(first.created_passwords.map((p) => p.email).sort()).to.deep.equal(
      first.users.map((u) => u.email).sort(),
    );
    expect(new Set(first.created_passwords.map((p) => p.password)).size).to.equal(first.users.length);
    for (const { email, password } of first.created_passwords) {
      expect(password).to.match(/^[A-Za-z0-9_-]{16}$/);
      expect((await lookup.client.AuthenticatePassword({ email, password })).email).to.equal(email);
    }
  });

  it('issues working keys: an unscoped all-scopes admin key, project-scoped keys and a read-only key', async () => {
    const support = first.projects.find((p) => p.slug === 'support')!;
    const admin = first.users.find((u) => u.role === 'admin')!;
    const principals = await Promise.all(
      first.created_keys.map((k) => lookup.client.AuthenticateApiKey({ key: k.key })),
    );
    const described = principals.map((p) => fields(p));
    expect(described).to.deep.include({
      key_id: first.created_keys[0]!.id,
      user_id: admin.id,
      role: 'admin',
      scopes: [
        'tickets:read',
        'tickets:write',
        'tickets:delete',
        'comments:read',
        'comments:write',
        'customers:read',
        'customers:write',
      ],
    });
    expect(described.some((p) => p.role === 'agent' && p.project_id === support.id)).to.be.true;
    expect(
      described.some(
        (p) =>
          p.role === 'viewer' && p.project_id === undefined && !p.scopes!.some((s) => s.endsWith(':write')),
      ),
    ).to.be.true;
  });

  it('changes nothing on a second run and answers the same data with no new keys', async () => {
    const second = await lookup.client.SeedDemo({});
    expect(second.created_keys).to.deep.equal([]);
    expect(second.created_passwords).to.deep.equal([]);
    expect(second.projects).to.deep.equal(first.projects);
    expect(second.ticket_types).to.deep.equal(first.ticket_types);
    expect(second.users).to.deep.equal(first.users);
    const { rows } = await lookup.sql.query<{ projects: string; types: string; users: string; keys: string }>(
      `SELECT (SELECT count(*) FROM projects) AS projects, (SELECT count(*) FROM ticket_types) AS types,
              (SELECT count(*) FROM users WHERE NOT is_system) AS users,
              (SELECT count(*) FROM api_keys) AS keys`,
    );
    expect(rows[0]).to.deep.equal({
      projects: '2',
      types: String(first.ticket_types.length),
      users: '4',
      keys: String(first.created_keys.length),
    });
  });

  it('concurrent runs create nothing twice', async () => {
    const runs = await Promise.all([lookup.client.SeedDemo({}), lookup.client.SeedDemo({})]);
    expect(runs.map((run) => run.created_keys)).to.deep.equal([[], []]);
  });

  it('issues a demo key again when it was revoked (a revoked key counts as missing)', async () => {
    const revokedKey = first.created_keys[1]!;
    await lookup.client.RevokeApiKey({ id: revokedKey.id });
    const third = await lookup.client.SeedDemo({});
    expect(third.created_keys.map((k) => [k.name, k.user_id, k.scopes, k.project_id])).to.deep.equal([
      [revokedKey.name, revokedKey.user_id, revokedKey.scopes, revokedKey.project_id],
    ]);
    expect(third.created_keys[0]!.id).not.to.equal(revokedKey.id);
  });
});
