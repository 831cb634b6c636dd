import { expect } from 'chai';
import { cliSuite, json, tix } from './cli-support.js';

describe('admin CLI (pnpm tix) against a real lookup service', function () {
  this.timeout(60_000);
  const lookup = cliSuite();

  it('project create --json prints the project object (default workflow) and nothing else', async () => {
    const run = await tix(
      ['project', 'create', '--name', 'Acme Corp', '--slug', 'acme', '--prefix', 'AC', '--json'],
      lookup.env,
    );
    expect(run.stderr).to.equal('');
    const project = json(run);
    expect(project).to.deep.equal({
      id: project.id,
      name: 'Acme Corp',
      slug: 'acme',
      prefix: 'AC',
      description: '',
      statuses: [
        { slug: 'open', label: 'Open', is_closed: false, position: 0 },
        { slug: 'work_in_progress', label: 'Work in progress', is_closed: false, position: 1 },
        { slug: 'waiting', label: 'Waiting', is_closed: false, position: 2 },
        { slug: 'closed', label: 'Closed', is_closed: true, position: 3 },
      ],
    });
    expect(project.id).to.be.a('number');
  });

  it('project create with --statuses and --description', async () => {
    const project = json(
      await tix(
        [
          'project',
          'create',
          '--name',
          'Ops',
          '--slug',
          'ops',
          '--prefix',
          'OPS',
          '--description',
          'Runbooks',
          '--statuses',
          'triage:Triage,done:Done:closed',
          '--json',
        ],
        lookup.env,
      ),
    );
    expect(project).to.deep.include({ description: 'Runbooks' });
    expect(project.statuses).to.deep.equal([
      { slug: 'triage', label: 'Triage', is_closed: false, position: 0 },
      { slug: 'done', label: 'Done', is_closed: true, position: 1 },
    ]);
  });

  it('a refusal by the service exits 1, prints nothing on stdout and the message with validation errors on stderr', async () => {
    const run = await tix(
      ['project', 'create', '--name', 'Again', '--slug', 'acme', '--prefix', 'AC', '--json'],
      lookup.env,
    );
    expect(run).to.deep.equal({
      code: 1,
      stdout: '',
      stderr:
        'tix: Validation failed (422 validation_failed)\n' +
        '  slug: A project with slug "acme" already exists\n' +
        '  prefix: Prefix "AC" is already used by another project\n',
    });
  });

  it('ticket-type create --json prints the spec TicketType object with field_schema as an array', async () => {
    const fields = JSON.stringify([
      {
        name: 'severity',
        label: 'Severity',
        type: 'select',
        required: true,
        constraints: { allowed_values: ['low', 'high'] },
        default_value: 'low',
        order: 1,
      },
    ]);
    const type = json(
      await tix(
        [
          'ticket-type',
          'create',
          '--project',
          'acme',
          '--name',
          'Bug',
          '--slug',
          'bug',
          '--default',
          '--fields',
          fields,
          '--json',
        ],
        lookup.env,
      ),
    );
    expect(Object.keys(type).sort()).to.deep.equal([
      'description',
      'field_schema',
      'id',
      'is_default',
      'name',
      'retired_at',
      'slug',
    ]);
    expect(type).to.deep.include({ name: 'Bug', slug: 'bug', description: '', is_default: true });
    expect(type.field_schema).to.be.an('array').with.length(1);
    expect((type.field_schema as object[])[0]).to.deep.include({ name: 'severity', type: 'select' });
  });

  it('ticket-type create refuses invalid --fields JSON before calling the service (exit 2)', async () => {
    const run = await tix(
      [
        'ticket-type',
        'create',
        '--project',
        'acme',
        '--name',
        'X',
        '--slug',
        'x',
        '--fields',
        '[{',
        '--json',
      ],
      lookup.env,
    );
    expect(run.code).to.equal(2);
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.match(/^tix: ticket-type create: --fields is not valid JSON: .+\n/);
  });

  it('ticket-type create for an unknown project exits 1 naming the problem', async () => {
    const run = await tix(
      ['ticket-type', 'create', '--project', 'nope', '--name', 'X', '--slug', 'x', '--json'],
      lookup.env,
    );
    expect(run).to.deep.equal({ code: 1, stdout: '', stderr: 'tix: Project not found (404 not_found)\n' });
  });

  it('user create --json prints the spec User object; a bad role is refused naming the field', async () => {
    const user = json(
      await tix(
        [
          'user',
          'create',
          '--name',
          'Ada',
          '--email',
          'Ada@Example.com',
          '--role',
          'agent',
          '--password',
          'long enough',
          '--json',
        ],
        lookup.env,
      ),
    );
    expect(user).to.deep.equal({
      id: user.id,
      name: 'Ada',
      email: 'ada@example.com',
      role: 'agent',
      is_active: true,
      is_system: false,
    });
    const bad = await tix(
      ['user', 'create', '--name', 'X', '--email', 'x@example.com', '--role', 'boss', '--json'],
      lookup.env,
    );
    expect(bad).to.deep.equal({
      code: 1,
      stdout: '',
      stderr:
        'tix: Validation failed (422 validation_failed)\n  role: Role must be one of admin, team_lead, agent, viewer\n',
    });
  });

  it('key create / list / revoke: the documented shapes, the value only at creation, refused after revocation', async () => {
    const created = json(
      await tix(
        [
          'key',
          'create',
          '--user',
          'ada@example.com',
          '--scopes',
          'tickets:read,comments:read',
          '--project',
          'acme',
          '--name',
          'bot',
          '--json',
        ],
        lookup.env,
      ),
    );
    expect(Object.keys(created).sort()).to.deep.equal(['id', 'key', 'project_id', 'scopes', 'user_id']);
    expect(created.scopes).to.deep.equal(['tickets:read', 'comments:read']);
    expect(created.key).to.match(/^tix_[0-9A-Za-z]{49}$/);
    const principal = await lookup.client.AuthenticateApiKey({ key: created.key as string });
    expect(principal).to.include({
      key_id: created.id,
      user_id: created.user_id,
      project_id: created.project_id,
    });

    const unscoped = json(
      await tix(
        ['key', 'create', '--user', 'ada@example.com', '--scopes', 'tickets:read', '--json'],
        lookup.env,
      ),
    );
    expect(unscoped.project_id).to.equal(null);

    const listRun = await tix(
      ['key', 'list', '--user', 'ada@example.com', '--project', 'acme', '--json'],
      lookup.env,
    );
    const list = json(listRun);
    expect(list.count).to.equal(1);
    expect(list.keys).to.deep.equal([
      {
        id: created.id,
        name: 'bot',
        prefix: (created.key as string).slice(0, 12),
        scopes: ['tickets:read', 'comments:read'],
        project_id: created.project_id,
        user_id: created.user_id,
        created_at: (list.keys as { created_at: string }[])[0]!.created_at,
        last_used_at: (list.keys as { last_used_at: string | null }[])[0]!.last_used_at,
        revoked_at: null,
      },
    ]);
    expect(listRun.stdout).not.to.contain(created.key);
    expect(json(await tix(['key', 'list', '--json'], lookup.env)).count).to.equal(2);

    const revoked = json(await tix(['key', 'revoke', '--id', String(created.id), '--json'], lookup.env));
    expect(Object.keys(revoked).sort()).to.deep.equal(['id', 'revoked_at']);
    expect(revoked.id).to.equal(created.id);
    expect(
      json(await tix(['key', 'revoke', '--id', String(created.id), '--json'], lookup.env)),
    ).to.deep.equal(revoked);
    const refused = await lookup.client
      .AuthenticateApiKey({ key: created.key as string })
      .catch((error: unknown) => error);
    expect(refused).to.include({ kind: 'unauthenticated' });
  });

  it('key create with unknown scopes and key revoke of an unknown id exit 1 with the service message', async () => {
    const scopes = await tix(
      ['key', 'create', '--user', 'ada@example.com', '--scopes', 'tickets:read,everything', '--json'],
      lookup.env,
    );
    expect(scopes).to.deep.equal({
      code: 1,
      stdout: '',
      stderr:
        'tix: Validation failed (422 validation_failed)\n' +
        '  scopes: Unknown scope "everything"; allowed: tickets:read, tickets:write, tickets:delete, comments:read, comments:write, customers:read, customers:write\n',
    });
    expect(await tix(['key', 'revoke', '--id', '9999', '--json'], lookup.env)).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'tix: API key not found (404 not_found)\n',
    });
  });

  // Lookup alone: the demo tickets need the ticket and comment services (tests/e2e/cli.e2e.test.ts).
  it('seed --demo --without-tickets --json prints what it made; a second run makes no keys', async () => {
    const seeded = json(await tix(['seed', '--demo', '--without-tickets', '--json'], lookup.env));
    expect(Object.keys(seeded).sort()).to.deep.equal([
      'created_comments',
      'created_keys',
      'created_passwords',
      'created_tickets',
      'projects',
      'ticket_types',
      'users',
    ]);
    expect((seeded.created_passwords as { email: string }[]).map((p) => p.email)).to.have.length(4);
    expect((seeded.projects as { slug: string }[]).map((p) => p.slug)).to.deep.equal(['support', 'platform']);
    expect((seeded.users as { role: string }[]).map((u) => u.role)).to.deep.equal([
      'admin',
      'team_lead',
      'agent',
      'viewer',
    ]);
    const keys = seeded.created_keys as Record<string, unknown>[];
    expect(keys.length).to.be.greaterThan(0);
    expect(Object.keys(keys[0]!).sort()).to.deep.equal([
      'id',
      'key',
      'name',
      'project_id',
      'scopes',
      'user_id',
    ]);
    const types = seeded.ticket_types as Record<string, unknown>[];
    expect(Object.keys(types[0]!).sort()).to.deep.equal([
      'description',
      'field_schema',
      'id',
      'is_default',
      'name',
      'project_id',
      'retired_at',
      'slug',
    ]);

    expect([seeded.created_tickets, seeded.created_comments]).to.deep.equal([0, 0]);

    const again = json(await tix(['seed', '--demo', '--without-tickets', '--json'], lookup.env));
    expect(again.created_keys).to.deep.equal([]);
    expect(again.projects).to.deep.equal(seeded.projects);
  });

  it('without --json prints a readable summary', async () => {
    const run = await tix(
      ['user', 'create', '--name', 'Vic', '--email', 'vic@example.com', '--role', 'viewer'],
      lookup.env,
    );
    expect(run.code).to.equal(0);
    expect(run.stdout).to.match(/^Created user \d+ Vic <vic@example.com>, role viewer\n$/);
  });
});
