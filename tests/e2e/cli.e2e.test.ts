import { expect } from 'chai';
import { tix, tixJson } from '../support/cli.js';
import { eventually } from '@tix/kit/testing';
import {
  createKey,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  unique,
} from '../support/fixtures.js';
import { request } from '../support/http.js';
import { signIn } from '../support/session.js';

describe('admin CLI (pnpm tix)', () => {
  it('creates a project with the default workflow and prints exactly the documented object', async () => {
    const slug = unique('cli-');
    const project = await tixJson([
      'project',
      'create',
      '--name',
      'CLI project',
      '--slug',
      slug,
      '--prefix',
      'CLI' + slug.slice(-3).toUpperCase(),
    ]);
    expect(Object.keys(project).sort()).to.deep.equal([
      'description',
      'id',
      'name',
      'prefix',
      'slug',
      'statuses',
    ]);
    expect(project.statuses).to.deep.equal([
      { slug: 'open', label: 'Open', is_closed: false, position: 0 },
      { slug: 'work_in_progress', label: 'Work in progress', is_closed: false, position: 1 },
      { slug: 'waiting', label: 'Waiting', is_closed: false, position: 2 },
      { slug: 'closed', label: 'Closed', is_closed: true, position: 3 },
    ]);
  });

  it('accepts a custom workflow spec', async () => {
    const slug = unique('wf-');
    const project = await tixJson<{ statuses: unknown[] }>([
      'project',
      'create',
      '--name',
      'Workflow',
      '--slug',
      slug,
      '--prefix',
      'WF' + slug.slice(-3).toUpperCase(),
      '--statuses',
      'triage:Triage,doing:Doing,done:Done:closed',
    ]);
    expect(project.statuses).to.deep.equal([
      { slug: 'triage', label: 'Triage', is_closed: false, position: 0 },
      { slug: 'doing', label: 'Doing', is_closed: false, position: 1 },
      { slug: 'done', label: 'Done', is_closed: true, position: 2 },
    ]);
  });

  it('creates a ticket type with a field schema and prints the TicketType object', async () => {
    const slug = unique('tt-');
    await tixJson([
      'project',
      'create',
      '--name',
      'Types',
      '--slug',
      slug,
      '--prefix',
      'TT' + slug.slice(-3).toUpperCase(),
    ]);
    const fields = [
      {
        name: 'severity',
        label: 'Severity',
        type: 'select',
        required: true,
        constraints: { allowed_values: ['low', 'high'] },
        default_value: 'low',
        order: 1,
      },
    ];
    const type = await tixJson<Record<string, unknown>>([
      'ticket-type',
      'create',
      '--project',
      slug,
      '--name',
      'Bug',
      '--slug',
      'bug',
      '--default',
      '--fields',
      JSON.stringify(fields),
    ]);
    expect(type).to.include({ name: 'Bug', slug: 'bug', is_default: true });
    expect(Object.keys(type).sort()).to.deep.equal([
      'description',
      'field_schema',
      'id',
      'is_default',
      'name',
      'retired_at',
      'slug',
    ]);
    expect(type.field_schema).to.be.an('array').with.length(1);
    expect((type.field_schema as Record<string, unknown>[])[0]).to.include({
      name: 'severity',
      type: 'select',
      required: true,
    });
  });

  it('creates a user and prints the User object', async () => {
    const email = `${unique('u')}@example.com`;
    const user = await tixJson(['user', 'create', '--name', 'Ada', '--email', email, '--role', 'team_lead']);
    expect(user).to.deep.include({ name: 'Ada', email, role: 'team_lead', is_active: true });
    expect(Object.keys(user).sort()).to.deep.equal(['email', 'id', 'is_active', 'is_system', 'name', 'role']);
  });

  it('creates, lists and revokes keys; the key value is shown only at creation', async () => {
    const user = await createUser('agent');
    const created = await tixJson<{
      id: number;
      key: string;
      scopes: string[];
      project_id: null;
      user_id: number;
    }>(['key', 'create', '--user', user.email, '--scopes', 'tickets:read', '--name', 'reader']);
    expect(Object.keys(created).sort()).to.deep.equal(['id', 'key', 'project_id', 'scopes', 'user_id']);
    expect(created).to.deep.include({ scopes: ['tickets:read'], project_id: null, user_id: user.id });
    expect(created.key).to.match(/^tix_[A-Za-z0-9]{40,}$/);

    const listed = await tixJson<{ keys: Record<string, unknown>[]; count: number }>([
      'key',
      'list',
      '--user',
      user.email,
    ]);
    expect(listed.count).to.equal(1);
    expect(JSON.stringify(listed)).to.not.contain(created.key);

    const revoked = await tixJson<{ id: number; revoked_at: string }>([
      'key',
      'revoke',
      '--id',
      String(created.id),
    ]);
    expect(revoked.id).to.equal(created.id);
    expect(Number.isNaN(Date.parse(revoked.revoked_at))).to.equal(false);
  });

  it('works through `pnpm tix` with nothing but the JSON object on stdout', async () => {
    const result = await tix(['key', 'list', '--json'], { viaPnpm: true });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.json()).to.have.property('count').that.is.a('number');
  });

  it('seeds demo data idempotently: users who can sign in and a living board', async () => {
    interface Seeded {
      projects: { slug: string; statuses: { slug: string }[] }[];
      created_keys: unknown[];
      created_passwords: { email: string; password: string }[];
      created_tickets: number;
      created_comments: number;
    }
    const first = await tixJson<Seeded>(['seed', '--demo']);
    expect(first.projects).to.have.length(2);
    expect(first.created_tickets).to.be.at.least(24);
    expect(first.created_comments).to.be.at.least(20);

    // A newcomer signs in with a printed password and sees tickets in every lane of both boards.
    const agent = first.created_passwords.find((entry) => entry.email === 'agent@example.com')!;
    const browser = await signIn(agent.email, agent.password);
    for (const project of first.projects) {
      const board = await browser.call('GET', `/board?project=${project.slug}`);
      expect(board.status, board.text).to.equal(200);
      const counts = board.body.data.counts as Record<string, number>;
      for (const status of project.statuses) {
        expect(counts[status.slug], `${project.slug}: lane ${status.slug}`).to.be.greaterThan(0);
      }
    }
    const tickets = await browser.call('GET', '/tickets?project=support&per_page=100');
    const withComments = await Promise.all(
      (tickets.body.data.tickets as { id: number }[]).map(async (ticket) => {
        const comments = await browser.call('GET', `/tickets/${ticket.id}/comments?project=support`);
        return comments.body.data.count as number;
      }),
    );
    expect(withComments.filter((count) => count > 0).length).to.be.greaterThan(5);

    const second = await tixJson<Seeded>(['seed', '--demo']);
    expect(second.projects).to.have.length(2);
    expect(second.created_keys).to.have.length(0);
    expect([second.created_tickets, second.created_comments]).to.deep.equal([0, 0]);
  });

  it('edits a workflow: add, relabel, reorder, close; removing a lane with tickets needs --move-to', async () => {
    const project = await createProject();
    const type = await createTicketType(project.slug, { isDefault: true });
    const { key } = await createKey({ project: project.slug });
    const waiting: number[] = [];
    for (const title of ['First', 'Second']) {
      const ticket = await createTicket<{ id: number }>(key, { title, ticket_type_id: type.id });
      const moved = await request(`/v1/tickets/${ticket.id}/status`, {
        method: 'PATCH',
        key,
        body: { status: 'waiting' },
      });
      expect(moved.status, moved.text).to.equal(200);
      waiting.push(ticket.id);
    }
    const slugs = (workflow: { statuses: { slug: string }[] }) => workflow.statuses.map((s) => s.slug);

    const renamed = await tixJson<{ name: string }>([
      'project',
      'update',
      '--project',
      project.slug,
      '--name',
      'Renamed',
    ]);
    expect(renamed.name).to.equal('Renamed');
    const added = await tixJson<{ statuses: { slug: string }[] }>([
      'status',
      'add',
      '--project',
      project.slug,
      '--slug',
      'review',
      '--label',
      'Review',
      '--position',
      '1',
    ]);
    expect(slugs(added)).to.deep.equal(['open', 'review', 'work_in_progress', 'waiting', 'closed']);
    const moved = await tixJson<{ statuses: { slug: string; label: string; is_closed: boolean }[] }>([
      'status',
      'update',
      '--project',
      project.slug,
      '--slug',
      'review',
      '--label',
      'In review',
      '--position',
      '3',
    ]);
    expect(slugs(moved)).to.deep.equal(['open', 'work_in_progress', 'waiting', 'review', 'closed']);
    expect(moved.statuses[3]).to.include({ label: 'In review', is_closed: false });

    const refused = await tix(['status', 'remove', '--project', project.slug, '--slug', 'waiting', '--json']);
    expect(refused.code, refused.stderr).to.equal(1);
    expect(refused.stderr).to.match(/2 tickets/);

    const removed = await tixJson<{ statuses: { slug: string }[] }>([
      'status',
      'remove',
      '--project',
      project.slug,
      '--slug',
      'waiting',
      '--move-to',
      'review',
    ]);
    expect(slugs(removed)).to.deep.equal(['open', 'work_in_progress', 'review', 'closed']);
    // The ticket service moves the lane's tickets when it hears project.updated.
    await eventually(async () => {
      const board = await request(`/v1/board`, { key });
      const lanes = board.body.data.lanes as Record<string, { id: number }[]>;
      return (
        !('waiting' in lanes) &&
        JSON.stringify(lanes.review!.map((ticket) => ticket.id).sort()) ===
          JSON.stringify([...waiting].sort())
      );
    }, 15_000);
  }).timeout(120_000); // nine CLI runs, each a node start

  it('retires a ticket type: no new tickets of it, existing ones keep it', async () => {
    const project = await createProject();
    await createTicketType(project.slug, { isDefault: true });
    const old = await createTicketType(project.slug, { name: 'Legacy', slug: 'legacy' });
    const { key } = await createKey({ project: project.slug });
    const ticket = await createTicket<{ id: number }>(key, { title: 'Old one', ticket_type_id: old.id });

    const retired = await tixJson<{ retired_at: string | null }>([
      'ticket-type',
      'update',
      '--project',
      project.slug,
      '--slug',
      'legacy',
      '--name',
      'Legacy (retired)',
      '--retire',
    ]);
    expect(retired.retired_at).to.be.a('string');
    const refused = await request('/v1/tickets', {
      method: 'POST',
      key,
      body: { title: 'New one', ticket_type_id: old.id },
    });
    expect(refused.status, refused.text).to.equal(422);
    const kept = await request(`/v1/tickets/${ticket.id}`, { key });
    expect(kept.body.data.ticket.ticket_type_id).to.equal(old.id);

    const back = await tixJson<{ retired_at: string | null }>([
      'ticket-type',
      'update',
      '--project',
      project.slug,
      '--slug',
      'legacy',
      '--unretire',
    ]);
    expect(back.retired_at).to.equal(null);
  });

  const refusals: [string, string[], RegExp][] = [
    ['an unknown command', ['frobnicate', '--json'], /unknown command|frobnicate/i],
    ['a missing required option', ['project', 'create', '--name', 'x', '--json'], /slug/i],
    [
      'an unknown option',
      [
        'user',
        'create',
        '--name',
        'x',
        '--email',
        'x@example.com',
        '--role',
        'agent',
        '--colour',
        'red',
        '--json',
      ],
      /colour/i,
    ],
    [
      'an invalid role',
      [
        'user',
        'create',
        '--name',
        'x',
        '--email',
        `${unique('r')}@example.com`,
        '--role',
        'wizard',
        '--json',
      ],
      /role/i,
    ],
    [
      'a malformed --statuses spec',
      [
        'project',
        'create',
        '--name',
        'x',
        '--slug',
        unique('bad-'),
        '--prefix',
        'BAD',
        '--statuses',
        ':::',
        '--json',
      ],
      /status/i,
    ],
    [
      'invalid JSON in --fields',
      [
        'ticket-type',
        'create',
        '--project',
        'nope',
        '--name',
        'x',
        '--slug',
        'x',
        '--fields',
        '{oops',
        '--json',
      ],
      /json|fields/i,
    ],
    [
      'unknown scopes',
      ['key', 'create', '--user', 'nobody@example.com', '--scopes', 'tickets:fly', '--json'],
      /scope/i,
    ],
  ];
  for (const [what, args, message] of refusals) {
    it(`refuses ${what} with a message and a non-zero exit`, async () => {
      const result = await tix(args);
      expect(result.code).to.not.equal(0);
      expect(result.stderr).to.match(message);
      expect(result.stdout.trim()).to.satisfy((out: string) => out === '' || !out.includes('"ok":true'));
    });
  }
});
