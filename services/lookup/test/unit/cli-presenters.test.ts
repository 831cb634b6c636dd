import { expect } from 'chai';
import { presentProject, presentTicketType, presentUser, type lookup } from '@tix/protos';
import {
  presentCreatedKey,
  presentEvaluation,
  presentKeyList,
  presentRevokedKey,
  presentSeed,
  presentUserList,
  summaries,
} from '../../src/cli/presenters.js';

const project: lookup.Project__Output = {
  id: 1,
  name: 'Acme',
  slug: 'acme',
  prefix: 'AC',
  description: 'd',
  statuses: [
    { slug: 'open', label: 'Open', is_closed: false, position: 0 },
    { slug: 'closed', label: 'Closed', is_closed: true, position: 1 },
  ],
};
const type: lookup.TicketType__Output = {
  id: 3,
  project_id: 1,
  name: 'Bug',
  slug: 'bug',
  description: '',
  is_default: true,
  field_schema_json: '[{"name":"x"}]',
};
const user: lookup.User__Output = {
  id: 2,
  name: 'Bo',
  email: 'bo@x.io',
  role: 'agent',
  is_active: true,
  is_system: false,
};
const created: lookup.CreatedApiKey__Output = {
  id: 5,
  key: 'tix_abc',
  scopes: ['tickets:read'],
  user_id: 2,
  name: 'CI',
  created_at: '2026-01-01T00:00:00.000Z',
  prefix: 'tix_abc',
};

describe('CLI output shapes (README.md "Admin CLI")', () => {
  it('project: { id, name, slug, prefix, description, statuses: [{ slug, label, is_closed, position }] }', () => {
    // Field for field what the contract answered, nothing added or dropped.
    expect(presentProject(project)).to.deep.equal(project);
  });

  it('ticket type: the spec object, field_schema as an array, retired_at, no project_id', () => {
    expect(presentTicketType(type)).to.deep.equal({
      id: 3,
      name: 'Bug',
      slug: 'bug',
      description: '',
      is_default: true,
      field_schema: [{ name: 'x' }],
      retired_at: null,
    });
    expect(presentTicketType({ ...type, retired_at: '2026-11-25T10:00:00.000Z' }).retired_at).to.equal(
      '2026-11-25T10:00:00.000Z',
    );
    expect(presentTicketType({ ...type, field_schema_json: '' }).field_schema).to.deep.equal([]);
  });

  it('user: { id, name, email, role, is_active, is_system }', () => {
    // Field for field what the contract answered, nothing added or dropped.
    expect(presentUser(user)).to.deep.equal(user);
  });

  it('user list: { users, count }', () => {
    const inactive = { ...user, id: 4, email: 'di@x.io', is_active: false };
    expect(presentUserList({ users: [user, inactive] })).to.deep.equal({
      users: [presentUser(user), presentUser(inactive)],
      count: 2,
    });
    expect(presentUserList({ users: [] })).to.deep.equal({ users: [], count: 0 });
  });

  it('key create: { id, key, scopes, project_id, user_id } with project_id null when unscoped', () => {
    expect(presentCreatedKey(created)).to.deep.equal({
      id: 5,
      key: 'tix_abc',
      scopes: ['tickets:read'],
      project_id: null,
      user_id: 2,
    });
    expect(presentCreatedKey({ ...created, project_id: 1 })).to.have.property('project_id', 1);
  });

  it('key list: { keys, count } with nulls for absent optional fields and no key value', () => {
    /** Every optional field set: it comes out as it went in. */
    const complete = {
      id: 2,
      name: 'b',
      prefix: 'tix_abcdefgh',
      scopes: ['comments:read'],
      project_id: 4,
      user_id: 2,
      created_at: 't1',
      last_used_at: 't2',
      revoked_at: 't3',
    };
    const list = presentKeyList({
      keys: [
        { id: 1, name: 'a', prefix: 'tix_12345678', scopes: ['tickets:read'], user_id: 2, created_at: 't0' },
        complete,
      ],
    });
    expect(list).to.deep.equal({
      keys: [
        {
          id: 1,
          name: 'a',
          prefix: 'tix_12345678',
          scopes: ['tickets:read'],
          project_id: null,
          user_id: 2,
          created_at: 't0',
          last_used_at: null,
          revoked_at: null,
        },
        complete,
      ],
      count: 2,
    });
  });

  it('key revoke: { id, revoked_at }', () => {
    expect(presentRevokedKey({ id: 9, revoked_at: 't' })).to.deep.equal({ id: 9, revoked_at: 't' });
  });

  it('seed: projects, ticket types (with project_id), users, and the keys and passwords this run created', () => {
    expect(
      presentSeed({
        projects: [project],
        ticket_types: [type],
        users: [user],
        created_keys: [created],
        created_passwords: [{ email: 'bo@x.io', password: 'p4ss' }],
        created_tickets: 26,
        created_comments: 30,
      }),
    ).to.deep.equal({
      projects: [presentProject(project)],
      ticket_types: [{ ...presentTicketType(type), project_id: 1 }],
      users: [presentUser(user)],
      created_keys: [
        { id: 5, key: 'tix_abc', scopes: ['tickets:read'], project_id: null, user_id: 2, name: 'CI' },
      ],
      created_passwords: [{ email: 'bo@x.io', password: 'p4ss' }],
      created_tickets: 26,
      created_comments: 30,
    });
  });

  it('ai eval: per project, recall@k and the priority curve as fractions, the default threshold', () => {
    /** Fractions in, fractions out (the readable summary makes them percentages). */
    const curve = [
      { threshold: 0.75, coverage: 0.9, precision: 0.912 },
      { threshold: 0.8, coverage: 0.85, precision: 0.95 },
    ];
    const evaluation = presentEvaluation(project, {
      project_id: 1,
      resolved_tickets: 60,
      recall_at_k: 0.95,
      k: 3,
      priority_curve: curve,
      default_threshold: 0.8,
    });
    expect(evaluation).to.deep.equal({
      project_id: 1,
      project_slug: 'acme',
      resolved_tickets: 60,
      k: 3,
      recall_at_k: 0.95,
      default_threshold: 0.8,
      priority: curve,
    });
    const empty = { ...evaluation, project_id: 2, project_slug: 'ops', resolved_tickets: 0, priority: [] };
    expect(summaries.evaluations({ evaluations: [evaluation, empty] })).to.equal(
      [
        'Project acme (id 1): 60 resolved tickets, each looked up as if new',
        '  recall@3: 95.0 % found a ticket of the same category among the 3 nearest',
        '  priority predictions:',
        '    threshold        coverage  precision',
        '    0.75               90.0 %     91.2 %',
        '    0.80 (default)     85.0 %     95.0 %',
        '',
        'Project ops (id 2): no resolved tickets with a public reply yet',
        '',
      ].join('\n'),
    );
    expect(summaries.evaluations({ evaluations: [] })).to.equal('No projects to evaluate.\n');
  });

  it('readable summaries mention what was made (and the key value, once)', () => {
    expect(summaries.project(presentProject(project))).to.equal(
      'Created project 1 "Acme": slug acme, ticket prefix AC\nWorkflow: open (Open) -> closed (Closed, closed)\n',
    );
    expect(summaries.createdKey(presentCreatedKey(created))).to.contain('Key: tix_abc\n');
    expect(summaries.keyList({ keys: [], count: 0 })).to.equal('0 keys\n');
    expect(
      summaries.userList(
        presentUserList({
          users: [
            { ...user, id: 1, name: 'Tix AI', email: 'ai@tix.invalid', is_system: true },
            user,
            { ...user, id: 4, is_active: false },
          ],
        }),
      ),
    ).to.equal(
      '1\tai@tix.invalid\tagent\tactive (system)\tTix AI\n2\tbo@x.io\tagent\tactive\tBo\n4\tbo@x.io\tagent\tinactive\tBo\n3 users\n',
    );
    expect(summaries.updatedUser(presentUser({ ...user, is_active: false }))).to.equal(
      'User 2 Bo <bo@x.io>: role agent, inactive\n',
    );
  });
});
